"""Interop checks run by Tests/IntegrationTests/InteropTests.swift against a running Melon broker.

usage: interop.py worker ENDPOINT SERVICE COUNT      serve COUNT requests, uppercasing the body
       interop.py client ENDPOINT SERVICE BODY...    send one request, print the reply frames as JSON
       interop.py mmi ENDPOINT SERVICE               print the mmi.service code
"""
import json
import sys

from mdp import Client, Worker


def main(argv):
    mode, endpoint = argv[1], argv[2]
    if mode == "worker":
        worker = Worker(endpoint, argv[3].encode())
        print("ready", flush=True)
        worker.serve(lambda body: [frame.upper() for frame in body], stop_after=int(argv[4]))
        worker.close()
    elif mode == "client":
        client = Client(endpoint)
        reply = client.request(argv[3].encode(), *[arg.encode() for arg in argv[4:]])
        client.close()
        if reply is None:
            print("timeout", file=sys.stderr)
            return 1
        print(json.dumps([frame.decode("utf-8", "replace") for frame in reply]))
    elif mode == "mmi":
        client = Client(endpoint)
        reply = client.request(b"mmi.service", argv[3].encode())
        client.close()
        print(reply[-1].decode() if reply else "timeout")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
