#!/usr/bin/python3
"""Household list reads at a fixed rate, and balances of a big household, through a running `melon`.

Starts `melon` (the binary given) on a database you name, with its mail going to an SMTP server
(aiosmtpd) this script runs. Setup: three accounts register (their codes read from the mail) and
log in; one creates a household, the others join with its code; each fills a personal list and the
communal list with --items items.

Reads: an open loop sends GET shopping-list, communal list and personal list in turn at --rate
requests per second for --duration seconds from --threads threads (each with its own keep-alive
connection). A request's latency counts from when it was due, not when a thread got to it, so a
server that falls behind shows it (no coordinated omission). Prints the rate reached, p50, p99,
max and errors per run.

Balances: 17 more members (rows: they need no login to owe), then --bills bills of 20 equal parts
each, paid by members in turn, with the running debts they add up to, inserted with psql; then
GET balances --samples times one after another (simplified, the default): p50 and p99 over HTTP.
Beside it, psql's time for summing the same debts from every bill part, which is what a read would
cost without the running debts.

  .build/release/melon must exist (swift build -c release --product melon)
  /usr/bin/python3 Benchmarks/HouseholdLoad/household-load.py --melon .build/release/melon \
      --database-url postgres://... --runs 3
"""
import os, statistics, sys, time, uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Support"))
from melon_bench import Client, Melon, arguments, open_loop, percentile, psql, sign_in


def main():
    parser = arguments(__doc__)
    parser.add_argument("--rate", type=float, default=200, help="list reads per second")
    parser.add_argument("--duration", type=float, default=20, help="seconds of reads per run")
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--items", type=int, default=20, help="items on each list")
    parser.add_argument("--bills", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=200, help="balance reads per run")
    args = parser.parse_args()

    with Melon(args.melon, args.database_url) as melon:
        tokens = [sign_in(melon, f"bench-{uuid.uuid4().hex[:12]}@tcd.ie") for _ in range(3)]
        owner = Client(melon.base, tokens[0])
        household = owner.expect("setup", "POST", "/v1/households", {"name": "Bench flat", "currency": "EUR"})["id"]
        code = owner.expect("setup", "POST", f"/v1/households/{household}/invites", {})["code"]
        for token in tokens[1:]:
            Client(melon.base, token).expect("setup", "POST", "/v1/households/join", {"code": code})
        base = f"/v1/households/{household}"
        for number, token in enumerate(tokens):
            client = Client(melon.base, token)
            for item in range(args.items):
                client.expect("setup", "POST", f"{base}/groceries/personal/items", {"name": f"Item {number}-{item}", "quantity": 2})
        for item in range(args.items):
            owner.expect("setup", "POST", f"{base}/groceries/communal/items", {"name": f"Shared {item}"})

        paths = [f"{base}/shopping-list", f"{base}/groceries/communal", f"{base}/groceries/personal"]
        open_loop(melon.base, tokens, paths, args.rate, 3, args.threads)  # warm-up
        p50s, p99s = [], []
        for run in range(1, args.runs + 1):
            latencies, errors, seconds = open_loop(melon.base, tokens, paths, args.rate, args.duration, args.threads)
            p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
            p50s.append(p50)
            p99s.append(p99)
            print(f"reads run {run}: {len(latencies)} GETs at {len(latencies) / seconds:.0f}/s (asked {args.rate:.0f}/s), "
                  f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {max(latencies):.1f} ms, {errors} errors", flush=True)
        print(f"reads, medians over {args.runs} runs: p50 {statistics.median(p50s):.1f} ms, p99 {statistics.median(p99s):.1f} ms")

        # A household of 20 (3 who sign in, 17 rows) and its bills, as the routes would leave them.
        psql(args.database_url, f"""
            INSERT INTO household.members (id, household_id, account_id, role, joined_at)
            SELECT gen_random_uuid(), '{household}', gen_random_uuid(), 'member', now() FROM generate_series(1, 17);
            CREATE TEMP TABLE m AS SELECT id, row_number() OVER (ORDER BY seq) - 1 AS n FROM household.members WHERE household_id = '{household}';
            INSERT INTO household.bills (id, household_id, title, amount_minor, currency, paid_by, bill_date, split, created_by, created_at, updated_at)
            SELECT gen_random_uuid(), '{household}', 'Bill ' || i, 20 * (50 + i % 500), 'EUR', m.id, current_date, 'equal', m.id, now(), now()
            FROM generate_series(1, {args.bills}) i JOIN m ON m.n = i % 20;
            INSERT INTO household.bill_parts (bill_id, position, member_id, share_minor)
            SELECT b.id, m.n, m.id, b.amount_minor / 20 FROM household.bills b CROSS JOIN m WHERE b.household_id = '{household}';
            INSERT INTO household.debts (household_id, currency, debtor, creditor, amount)
            SELECT b.household_id, b.currency, p.member_id, b.paid_by, sum(p.share_minor)
            FROM household.bills b JOIN household.bill_parts p ON p.bill_id = b.id
            WHERE b.household_id = '{household}' AND p.member_id <> b.paid_by GROUP BY 1, 2, 3, 4
            ON CONFLICT (household_id, currency, debtor, creditor) DO UPDATE SET amount = household.debts.amount + EXCLUDED.amount;
            ANALYZE household.bills; ANALYZE household.bill_parts; ANALYZE household.debts;
        """)
        recompute = f"""
            EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON)
            SELECT b.currency, p.member_id, b.paid_by, sum(p.share_minor) FROM household.bills b JOIN household.bill_parts p ON p.bill_id = b.id
            WHERE b.household_id = '{household}' AND b.deleted_at IS NULL AND p.member_id <> b.paid_by GROUP BY 1, 2, 3
        """
        owner = Client(melon.base, tokens[0])  # a new connection: the gateway closed the idle one
        for run in range(1, args.runs + 1):
            reply = owner.expect("balances", "GET", f"{base}/balances")
            transfers = len(reply["currencies"][0]["transfers"]) if reply["currencies"] else 0
            latencies = []
            for _ in range(args.samples):
                started = time.monotonic()
                owner.expect("balances", "GET", f"{base}/balances")
                latencies.append((time.monotonic() - started) * 1000)
            plan = psql(args.database_url, recompute)
            summed = next((line.split(":")[1].strip() for line in plan.splitlines() if line.startswith("Execution Time")), "?")
            print(f"balances run {run}: 20 members, {args.bills} bills, {transfers} transfers: "
                  f"p50 {percentile(latencies, 50):.1f} ms, p99 {percentile(latencies, 99):.1f} ms over HTTP; "
                  f"summing every bill part instead: {summed}", flush=True)


if __name__ == "__main__":
    main()
