#!/usr/bin/python3
"""Whether an anonymous auth route takes longer when the address has an account, through `melon`.

Starts `melon` (the binary given) on a database you name, with its mail going to an SMTP server
(aiosmtpd) this script runs, and makes a few accounts. Then, for each anonymous route, it sends
--count requests naming an address that has an account and --count naming one that has none, in a
random order, one at a time, and prints per case p50 and p95 of the reply time and the difference of
the medians; the last line gives, per route, the median over runs of that difference. Both cases of a
route get the same answer (the gateway tests check that); this measures whether the time tells.

  .build/release/melon must exist (swift build -c release --product melon)
  /usr/bin/python3 Benchmarks/AnonymousTiming/anonymous-timing.py --melon .build/release/melon \
      --database-url postgres://... --runs 3 --count 200
"""
import os, random, statistics, sys, time, uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Support"))
from melon_bench import PASSWORD, Melon, arguments, make_account, percentile

def routes():
    """Each route: its path and the body for an address (`has` tells whether it has an account)."""
    fresh = lambda: "b" + uuid.uuid4().hex[:20]
    attempt = lambda: str(uuid.uuid4())
    return {
        "register": ("/v1/auth/register",
                     lambda address, has: {"email": address, "password": PASSWORD, "displayName": "Bench", "username": fresh()}),
        "login (wrong password)": ("/v1/auth/login", lambda address, has: {"email": address, "password": "not the password", "app": "melon"}),
        "password/forgot": ("/v1/auth/password/forgot", lambda address, has: {"email": address}),
        "verify-email (wrong code)": ("/v1/auth/verify-email",
                                      lambda address, has: {"email": address, "code": "000000", "registration": attempt()}),
        "verify-email/resend": ("/v1/auth/verify-email/resend", lambda address, has: {"email": address, "registration": attempt()}),
    }


def main():
    parser = arguments(__doc__)
    parser.add_argument("--count", type=int, default=200, help="requests per case per route per run")
    parser.add_argument("--accounts", type=int, default=20, help="accounts the 'has an account' requests cycle through")
    args = parser.parse_args()

    # The per-address limits would block the repeated addresses: this measures time, not limits.
    limits = {"AUTH_ATTEMPTS_PER_ACCOUNT": "1000", "AUTH_ATTEMPTS_PER_ACCOUNT_ALL": "100000"}
    with Melon(args.melon, args.database_url, limits) as melon:
        accounts = [f"has-{uuid.uuid4().hex[:12]}@tcd.ie" for _ in range(args.accounts)]
        for address in accounts:
            make_account(melon, address)
        differences = {name: [] for name in routes()}
        for run in range(1, args.runs + 1):
            for name, (path, body) in routes().items():
                cases = [True] * args.count + [False] * args.count
                random.shuffle(cases)
                times = {True: [], False: []}
                answers = {True: set(), False: set()}
                for n, has in enumerate(cases):
                    address = accounts[n % len(accounts)] if has else f"none-{uuid.uuid4().hex[:12]}@tcd.ie"
                    started = time.monotonic()
                    status, _ = melon.post(path, body(address, has))
                    times[has].append((time.monotonic() - started) * 1000)
                    answers[has].add(status)
                if answers[True] != answers[False]:
                    sys.exit(f"phase run {run}: {name} answered {answers[True]} with an account and {answers[False]} without")
                with_account, without = statistics.median(times[True]), statistics.median(times[False])
                differences[name].append(with_account - without)
                print(f"run {run}: {name} ({sorted(answers[True])}): with an account p50 {with_account:.2f} ms, "
                      f"p95 {percentile(times[True], 95):.2f} ms; without p50 {without:.2f} ms, p95 {percentile(times[False], 95):.2f} ms; "
                      f"difference of medians {with_account - without:+.2f} ms", flush=True)
        print("median over runs of the difference (with an account minus without): " +
              "; ".join(f"{name} {statistics.median(values):+.2f} ms" for name, values in differences.items()))


if __name__ == "__main__":
    main()
