#!/usr/bin/env python3
"""Prints the Kubernetes manifests of every Melon service: service.yaml.in filled in for each entry of
services.json (a name, what it is, and what differs: replicas, scratch folders; DeployFilesTests makes
services.json from the service definitions). Apply with
    deploy/k8s/render.py | kubectl apply -f -
beside config.yaml, broker.yaml and gateway.yaml. Standard library only."""
import json
import pathlib
import string
import sys

here = pathlib.Path(__file__).resolve().parent


def flow(items):
    """A YAML flow sequence (JSON is YAML), or [] when empty."""
    return json.dumps(items)


def render(service):
    scratch = service.get("scratch", [])
    fields = {
        "name": service["name"],
        "minReplicas": service.get("minReplicas", 2),
        "maxReplicas": service.get("maxReplicas", 8),
        "env": flow([{"name": name, "value": value} for d in scratch for name, value in sorted(d["env"].items())]),
        "volumeMounts": flow([{"name": d["volume"], "mountPath": d["path"]} for d in scratch]),
        "volumes": flow([{"name": d["volume"], "emptyDir": {}} for d in scratch]),
    }
    template = string.Template((here / "service.yaml.in").read_text())
    body = template.substitute(fields).split("\n", 2)[2]  # the template's own comment is not the service's
    return f"# {service['name']}: {service['about']}\n{body}"


def main():
    services = json.loads((here / "services.json").read_text())
    wanted = set(sys.argv[1:])
    print("---\n".join(render(s) for s in services if not wanted or s["name"] in wanted), end="")


if __name__ == "__main__":
    main()
