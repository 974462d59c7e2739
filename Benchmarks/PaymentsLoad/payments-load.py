#!/usr/bin/python3
"""Donations per second through the gateway, charged by the sandbox (the local processor), at a fixed rate, through a running `melon`.

Starts `melon` (the binary given) on a database you name, with its mail going to an SMTP server
(aiosmtpd) this script runs, and 127.0.0.1 as a trusted proxy. Setup: an owner and --donors donors
register (codes from the mail) and log in to the fundraising app; the owner starts a campaign. Each
donor stands for a client of its own network (X-Forwarded-For 10.x.y.z, as a proxy would send it),
so the per-network limit against card testing (40 an hour) applies per donor as it would in use;
the per-account limit (20 an hour) means a run needs rate × duration / 20 donors, and each run its
own.

An open loop POSTs /v1/campaigns/{id}/donations (2.50 to 50 euro, pm_card_visa, a new
Idempotency-Key each) at --rate requests per second for --duration seconds from --threads
threads; a request counts when it answers 201 with status succeeded (charged and posted to the
ledger with its karma). Its latency counts from when it was due (no coordinated omission). Prints
the rate reached, p50, p99, max and errors per run, then checks the campaign's figures against
what was given.

  .build/release/melon must exist (swift build -c release --product melon)
  /usr/bin/python3 Benchmarks/PaymentsLoad/payments-load.py --melon .build/release/melon \
      --database-url postgres://... --runs 3
"""
import os, statistics, sys, time, uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Support"))
from melon_bench import Client, Melon, arguments, open_loop, percentile, sign_in


def main():
    parser = arguments(__doc__)
    parser.add_argument("--rate", type=float, default=100, help="donations per second")
    parser.add_argument("--duration", type=float, default=10, help="seconds of donations per run")
    parser.add_argument("--threads", type=int, default=32)
    args = parser.parse_args()
    per_run = int(args.rate * args.duration)
    donors_per_run = -(-per_run // 20)

    with Melon(args.melon, args.database_url, {"TRUSTED_PROXIES": "127.0.0.1/32"}) as melon:
        owner = Client(melon.base, sign_in(melon, f"owner-{uuid.uuid4().hex[:12]}@example.org", app="fundraising"))
        campaign = owner.expect("setup", "POST", "/v1/campaigns", {
            "title": "Benchmark roof", "story": "Donations at a fixed rate.", "goal": {"minorUnits": 100_000_000, "currency": "EUR"},
            "endsAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 30 * 86_400)), "category": "community",
            "beneficiary": "The bench"})["id"]
        started = time.monotonic()
        donors = [sign_in(melon, f"donor-{uuid.uuid4().hex[:12]}@example.org", app="fundraising") for _ in range(donors_per_run * args.runs)]
        print(f"setup: {len(donors)} donors signed up in {time.monotonic() - started:.0f} s")
        given = [0]

        def donate(tokens, first):
            def send(client, index):
                number = first + index % len(tokens)
                client.token = tokens[number - first]
                cents = 250 + (index * 37) % 4_750
                status, reply = client.send(
                    "POST", f"/v1/campaigns/{campaign}/donations",
                    {"amount": {"minorUnits": cents, "currency": "EUR"}, "paymentMethod": "pm_card_visa"},
                    {"Idempotency-Key": str(uuid.uuid4()), "X-Forwarded-For": f"10.{number // 65536 % 256}.{number // 256 % 256}.{number % 256}"})
                done = status == 201 and reply.get("status") == "succeeded"
                if done:
                    given[0] += cents
                return done
            return send

        rates = []
        for run in range(args.runs):
            tokens = donors[run * donors_per_run:(run + 1) * donors_per_run]
            latencies, errors, seconds = open_loop(melon.base, tokens, [], args.rate, args.duration, args.threads, send=donate(tokens, run * donors_per_run))
            rate = (len(latencies) - errors) / seconds
            rates.append(rate)
            print(f"run {run + 1}: {len(latencies)} donations at {args.rate:.0f}/s: {rate:.1f} succeeded/s, p50 {percentile(latencies, 50):.1f} ms, "
                  f"p99 {percentile(latencies, 99):.1f} ms, max {max(latencies):.1f} ms, errors {errors}")
        print(f"median of {args.runs}: {statistics.median(rates):.1f} donations/s")
        # A new connection: the owner's has been idle past the gateway's keep-alive.
        figures = Client(melon.base, owner.token).expect("check", "GET", f"/v1/campaigns/{campaign}")["statistics"]
        if figures["gross"]["minorUnits"] != given[0]:
            sys.exit(f"the campaign's gross {figures['gross']['minorUnits']} is not the {given[0]} cents given")
        print(f"the campaign's gross is the {given[0]} cents given, from {figures['donations']} donations")


if __name__ == "__main__":
    main()
