#!/usr/bin/python3
"""Time from a registration to its code accepted by the SMTP server, through a running `melon`.

Starts `melon` (the binary given) on a database you name, with its mail going to an SMTP server
(aiosmtpd) this script runs; registers --count new addresses one after another through the gateway
and, for each, takes the time from sending the request to the SMTP server accepting the mail to that
address (the end of DATA). Prints p50, p95 and max per run and the medians over runs.

  .build/release/melon must exist (swift build -c release --product melon)
  /usr/bin/python3 Benchmarks/RegistrationMail/registration-mail.py --melon .build/release/melon \
      --database-url postgres://... --runs 3 --count 100
"""
import os, statistics, sys, time, uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Support"))
from melon_bench import Melon, arguments, percentile


def main():
    parser = arguments(__doc__)
    parser.add_argument("--count", type=int, default=100, help="registrations per run")
    parser.add_argument("--timeout", type=float, default=30, help="seconds to wait for one mail before giving up")
    args = parser.parse_args()

    with Melon(args.melon, args.database_url) as melon:
        p50s, p95s = [], []
        for run in range(1, args.runs + 1):
            latencies = []
            for n in range(args.count):
                address = f"bench-{uuid.uuid4().hex[:12]}@tcd.ie"
                started = time.monotonic()
                status, _ = melon.post("/v1/auth/register", {
                    "email": address, "password": "a long bench pass phrase", "displayName": "Bench",
                    "username": "b" + uuid.uuid4().hex[:20]})
                if status != 202:
                    sys.exit(f"phase run {run}: registration {n} answered {status}")
                arrived = melon.mailbox.wait(address, args.timeout)
                if arrived is None:
                    sys.exit(f"phase run {run}: the code for registration {n} did not reach SMTP within {args.timeout} s")
                latencies.append((arrived - started) * 1000)
            p50, p95 = percentile(latencies, 50), percentile(latencies, 95)
            p50s.append(p50)
            p95s.append(p95)
            print(f"run {run}: {args.count} registrations, register -> code accepted by SMTP: "
                  f"p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {max(latencies):.1f} ms", flush=True)
        print(f"median of {args.runs} runs: p50 {statistics.median(p50s):.1f} ms, p95 {statistics.median(p95s):.1f} ms")


if __name__ == "__main__":
    main()
