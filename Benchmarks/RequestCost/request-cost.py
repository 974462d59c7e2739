#!/usr/bin/python3
"""The CPU one request costs Melon, per kind of request, against a profile read (GET /v1/me).

Starts `melon` (the binary given) on a database you name, with its mail going to an SMTP server
(aiosmtpd) this script runs, and signs up one account with a finished 2024 interview. Then, per run
and per case, it sends --count requests one at a time and reads the CPU time (user + system, from
/proc) that the melon process and every `postgres` process of the machine spent meanwhile, divided by
the requests: the server's cost of one request, database included. Cases that are limited per account
(a PDF filled for a new version, a mail refused at the limit) send as many as the limit allows. The
last lines give per case the median over runs and its ratio to the profile read's median. Run it on a
quiet machine: other postgres work on it counts too.

  .build/release/melon must exist (swift build -c release --product melon)
  /usr/bin/python3 Benchmarks/RequestCost/request-cost.py --melon .build/release/melon \
      --database-url postgres://... --runs 3 --count 200
"""
import json, os, statistics, sys, time, urllib.error, urllib.request, uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Support"))
from melon_bench import PASSWORD, Melon, arguments, make_account

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids):
    """User plus system CPU seconds of the processes `pids` and of every `postgres` process."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)
            name = fields[0].split("(", 1)[1]
            rest = fields[1].split()
        except (OSError, IndexError):
            continue
        if int(entry) in pids or name == "postgres":
            total += int(rest[11]) + int(rest[12])  # utime, stime (fields 14 and 15 of stat)
    return total / TICKS


def call(melon, method, path, body=None, token=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(melon.base + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, reply.read(), reply.headers
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers


def w2(n):
    """A W-2 with every box filled: the largest an answer gets."""
    return {"employerName": f"Employer number {n} of the university dining services", "employerEIN": "12-3456789",
            "employeeTIN": "912-70-1234", "wagesCents": 3_000_100, "federalWithheldCents": 250_000,
            "socialSecurityWagesCents": 3_000_100, "socialSecurityWithheldCents": 186_006, "medicareWagesCents": 3_000_100,
            "medicareWithheldCents": 43_501, "box12": [{"code": c, "amountCents": 1000} for c in ["D", "E", "W", "DD"]],
            "retirementPlan": True, "states": [{"state": "MA", "employerStateID": "MA-123456789", "wagesCents": 3_000_100, "withheldCents": 100_000},
                                               {"state": "NY", "employerStateID": "NY-123456789", "wagesCents": 100, "withheldCents": 0}],
            "localWagesCents": 100, "localWithheldCents": 0, "localityName": "Boston"}


def resident(w2s):
    answers = {
        "citizen": False, "greenCard": "no", "visa": "F", "visa.changed": False, "visa.earlierYears": 0,
        "days.thisYear": 366, "days.lastYear": 365, "days.twoYearsAgo": 365, "days.januaryFirst": True, "closerConnection": False,
        "income.any": True, "income.other": False, "income.w2s": w2s,
        "filing.married": False, "filing.dependents": False, "filing.claimedAsDependent": False,
        "name.first": "Mei", "name.last": "Ling", "tin": "912-70-1234", "email": "mei.bench@tcd.ie", "occupation": "Student",
        "address.us": {"line1": "1 Silber Way", "city": "Boston", "state": "MA", "postalCode": "02215", "country": "US"},
    }
    for year in range(1, 6):
        answers[f"visa.prior{year}"] = "F"
    answers["visa.prior6"] = "none"
    return answers


def nested(depth):
    value = True
    for _ in range(depth):
        value = [value]
    return value


def main():
    parser = arguments(__doc__)
    parser.add_argument("--count", type=int, default=200, help="requests per case per run (fewer where a limit stops them)")
    args = parser.parse_args()
    with Melon(args.melon, args.database_url) as melon:
        address = f"cost-{uuid.uuid4().hex[:12]}@tcd.ie"
        make_account(melon, address)
        status, login = melon.post("/v1/auth/login", {"app": "melon", "email": address, "password": PASSWORD})
        if status != 200:
            sys.exit(f"phase setup: login answered {status}")
        token = login["accessToken"]
        status, body, _ = call(melon, "PATCH", "/v1/tax/interviews/2024", {"version": 0, "answers": resident([w2(1)])}, token)
        interview = json.loads(body)
        opened = [item["question"] for item in interview["assessment"]["missing"]]
        status, body, _ = call(melon, "PATCH", "/v1/tax/interviews/2024", {"version": 1, "skip": opened}, token)
        if status != 200:
            sys.exit(f"phase setup: finishing the interview answered {status}: {body[:300]}")
        version = [2]
        status, _, headers = call(melon, "GET", "/v1/tax/returns/2024/pdf", token=token)
        if status != 200:
            sys.exit(f"phase setup: the first PDF answered {status}")
        etag = [headers["ETag"]]
        largest = {"taxYear": 2024, "answers": resident([w2(n) for n in range(20)])}
        deep = {"taxYear": 2024, "answers": {f"q{n}": nested(500) for n in range(5)}}

        def fill():
            # A new version (one answer changed back and forth), then its PDF: a fill.
            changed = call(melon, "PATCH", "/v1/tax/interviews/2024", {"version": version[0], "answers": {"occupation": f"Student {version[0]}"}}, token)
            version[0] += 1
            status, _, headers = call(melon, "GET", "/v1/tax/returns/2024/pdf", token=token)
            etag[0] = headers["ETag"] or etag[0]
            return changed[0], status

        cases = {
            "profile read (GET /v1/me)": (args.count, lambda: call(melon, "GET", "/v1/me", token=token)[0]),
            "preview, one answer": (args.count, lambda: call(melon, "POST", "/v1/tax/returns/preview", {"taxYear": 2024, "answers": {"citizen": False}})[0]),
            "preview, the largest answers (20 full W-2s)": (args.count, lambda: call(melon, "POST", "/v1/tax/returns/preview", largest)[0]),
            "preview, 5 answers nested 500 deep (refused)": (args.count, lambda: call(melon, "POST", "/v1/tax/returns/preview", deep)[0]),
            "PDF of a version filled before": (args.count, lambda: call(melon, "GET", "/v1/tax/returns/2024/pdf", token=token)[0]),
            "PDF with If-None-Match (304)": (args.count, lambda: call(melon, "GET", "/v1/tax/returns/2024/pdf", token=token, headers={"If-None-Match": etag[0]})[0]),
            "a change and the PDF of the new version (a fill)": (6, fill),
            "mail at the day's limit (refused)": (args.count, lambda: call(melon, "POST", "/v1/tax/returns/2024/email", {"unencrypted": True}, token)[0]),
        }
        # The day's five mails first, so that the case above measures refusals.
        for _ in range(5):
            call(melon, "POST", "/v1/tax/returns/2024/email", {"unencrypted": True}, token)
        costs = {name: [] for name in cases}
        for run in range(1, args.runs + 1):
            for name, (count, send) in cases.items():
                statuses = set()
                before = cpu_seconds({melon.process.pid})
                for _ in range(count):
                    statuses.add(send())
                spent = cpu_seconds({melon.process.pid}) - before
                costs[name].append(spent / count * 1000)
                print(f"run {run}: {name}: {count} requests, answers {sorted(statuses, key=str)}, {spent / count * 1000:.2f} ms of CPU each", flush=True)
        base = statistics.median(costs["profile read (GET /v1/me)"])
        print("median over runs, and against a profile read:")
        for name, values in costs.items():
            print(f"  {name}: {statistics.median(values):.2f} ms of CPU, {statistics.median(values) / base:.1f}x")


if __name__ == "__main__":
    main()
