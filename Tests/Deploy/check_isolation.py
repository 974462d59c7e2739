"""Reads Melon's Kubernetes manifests and checks how its parts are kept apart: who can reach which
port of which pod under the NetworkPolicies (what deploy/k8s/network-policy.yaml promises), and which
Secrets each pod mounts (its own alone: the gateway's and the broker's hold their bus keys and nothing else). Prints what
differs and exits 1, or prints "ok". Usage: check_isolation.py MANIFEST.yaml ...

The model is the NetworkPolicy semantics for ingress with matchLabels selectors: a pod selected by
any policy is isolated and admits what one of those policies' rules allows; a rule without `from`
admits every source, a `podSelector` peer pods of the namespace, a `namespaceSelector` peer pods of
matching namespaces; ports match by name or number.
"""
import sys

import yaml

NAMESPACE = "melon"
# Where a connection may come from: the pod's labels and its namespace's labels.
SOURCES = {
    "the ingress controller": ({"app.kubernetes.io/name": "ingress-nginx"}, {"kubernetes.io/metadata.name": "ingress-nginx"}),
    "a pod elsewhere": ({}, {"kubernetes.io/metadata.name": "default"}),
    "a melon pod": ({"app.kubernetes.io/part-of": "melon"}, {"kubernetes.io/metadata.name": NAMESPACE}),
    "another pod in the namespace": ({"app": "other"}, {"kubernetes.io/metadata.name": NAMESPACE}),
    "monitoring": ({"app": "prometheus"}, {"kubernetes.io/metadata.name": "monitoring"}),
}
# What must hold: (pod, port name) -> the sources that reach it.
EXPECTED = {
    ("melon-gateway", "http"): {"the ingress controller"},
    ("melon-gateway", "health"): {"monitoring"},
    ("melon-broker", "bus"): {"a melon pod"},
    ("melon-broker", "events"): {"a melon pod"},
    ("melon-broker", "events-publish"): {"a melon pod"},
    ("melon-broker", "health"): {"monitoring"},
    ("melon-auth", "health"): {"monitoring"},
}


def matches(selector, labels):
    return all(labels.get(key) == value for key, value in (selector or {}).get("matchLabels", {}).items())


def admits(rule, source, port):
    labels, namespace = SOURCES[source]
    ports = rule.get("ports")
    if ports is not None and not any(str(p.get("port")) in port for p in ports):
        return False
    peers = rule.get("from")
    if peers is None:
        return True
    for peer in peers:
        if "namespaceSelector" in peer:
            if matches(peer["namespaceSelector"], namespace) and matches(peer.get("podSelector"), labels):
                return True
        elif "podSelector" in peer:
            if namespace.get("kubernetes.io/metadata.name") == NAMESPACE and matches(peer["podSelector"], labels):
                return True
    return False


def secrets_of(pod_spec):
    """Every Secret a pod's containers read (envFrom, env valueFrom) or mount as a volume."""
    names = {v["secret"]["secretName"] for v in pod_spec.get("volumes", []) if "secret" in v}
    for container in pod_spec["containers"]:
        names |= {e["secretRef"]["name"] for e in container.get("envFrom", []) if "secretRef" in e}
        names |= {e["valueFrom"]["secretKeyRef"]["name"] for e in container.get("env", []) if "secretKeyRef" in e.get("valueFrom", {})}
    return names


def main(files):
    documents = [d for f in files for d in yaml.safe_load_all(open(f)) if d]
    policies = [d for d in documents if d["kind"] == "NetworkPolicy"]
    pods, secrets = {}, {}
    for d in documents:
        if d["kind"] in ("Deployment", "StatefulSet"):
            template = d["spec"]["template"]
            ports = {}
            for container in template["spec"]["containers"]:
                for p in container.get("ports", []):
                    ports[p["name"]] = (p["name"], str(p["containerPort"]))
            name = d["metadata"]["name"]
            pods[name] = (template["metadata"]["labels"], ports)
            secrets[name] = secrets_of(template["spec"])
    problems = []
    for pod, mounted in sorted(secrets.items()):
        expected = {pod}
        if mounted != expected:
            problems.append(f"{pod} mounts the Secrets {sorted(mounted)}, not {sorted(expected)}")
    for (pod, port_name), expected in EXPECTED.items():
        if pod not in pods or port_name not in pods[pod][1]:
            problems.append(f"{pod} has no port {port_name}")
            continue
        labels, ports = pods[pod]
        selecting = [p for p in policies if matches(p["spec"]["podSelector"], labels) and "Ingress" in p["spec"].get("policyTypes", ["Ingress"])]
        reached = set(SOURCES) if not selecting else {
            source for source in SOURCES
            if any(admits(rule, source, ports[port_name]) for p in selecting for rule in p["spec"].get("ingress", []))
        }
        if reached != expected:
            problems.append(f"{pod}:{port_name} is reached by {sorted(reached)}, not {sorted(expected)}")
    print("\n".join(problems) or "ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
