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
import argparse, base64, json, os, socket, statistics, subprocess, sys, threading, time, urllib.request, uuid

from aiosmtpd.controller import Controller


class Arrivals:
    """What the SMTP server accepted: the time each recipient's mail ended DATA."""

    def __init__(self):
        self.lock = threading.Condition()
        self.at = {}

    async def handle_DATA(self, server, session, envelope):
        now = time.monotonic()
        with self.lock:
            for rcpt in envelope.rcpt_tos:
                self.at[rcpt.lower()] = now
            self.lock.notify_all()
        return "250 OK"

    def wait(self, address, timeout):
        deadline = time.monotonic() + timeout
        with self.lock:
            while address not in self.at:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.lock.wait(left)
            return self.at[address]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return reply.status


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--melon", required=True, help="the melon executable")
    parser.add_argument("--database-url", required=True, help="a PostgreSQL database melon may migrate and write")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--count", type=int, default=100, help="registrations per run")
    parser.add_argument("--timeout", type=float, default=30, help="seconds to wait for one mail before giving up")
    args = parser.parse_args()

    arrivals = Arrivals()
    smtp_port, http_port = free_port(), free_port()
    smtp = Controller(arrivals, hostname="127.0.0.1", port=smtp_port)
    smtp.start()
    environment = dict(os.environ,
                       HTTP_PORT=str(http_port), BROKER_ENDPOINT=f"tcp://127.0.0.1:{free_port()}", EVENTS_ENDPOINT="",
                       DATABASE_URL=args.database_url, SMTP_URL=f"smtp://127.0.0.1:{smtp_port}",
                       MAIL_FROM="Melon <no-reply@melon.example>", REFUND_CONTACT_EMAIL="refunds@melon.example",
                       AUTH_KEY_ENCRYPTION_KEY=base64.b64encode(os.urandom(32)).decode(),
                       TAX_FORM_KEY=base64.b64encode(os.urandom(32)).decode(),
                       # Every registration comes from this one address: the per-network limits would stop it.
                       AUTH_ATTEMPTS_PER_IP="100000", LOG_LEVEL="warning")
    melon = subprocess.Popen([args.melon], env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{http_port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(base + "/readyz", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except Exception:
                pass
            if time.monotonic() > deadline or melon.poll() is not None:
                sys.exit("phase start: melon was not ready within 60 s")
            time.sleep(0.2)

        p50s, p95s = [], []
        for run in range(1, args.runs + 1):
            latencies = []
            for n in range(args.count):
                address = f"bench-{uuid.uuid4().hex[:12]}@tcd.ie"
                started = time.monotonic()
                status = post(base + "/v1/auth/register", {
                    "email": address, "password": "a long bench pass phrase", "displayName": "Bench",
                    "username": "b" + uuid.uuid4().hex[:20]})
                if status != 202:
                    sys.exit(f"phase run {run}: registration {n} answered {status}")
                arrived = arrivals.wait(address, args.timeout)
                if arrived is None:
                    sys.exit(f"phase run {run}: the code for registration {n} did not reach SMTP within {args.timeout} s")
                latencies.append((arrived - started) * 1000)
            p50, p95 = percentile(latencies, 50), percentile(latencies, 95)
            p50s.append(p50)
            p95s.append(p95)
            print(f"run {run}: {args.count} registrations, register -> code accepted by SMTP: "
                  f"p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {max(latencies):.1f} ms", flush=True)
        print(f"median of {args.runs} runs: p50 {statistics.median(p50s):.1f} ms, p95 {statistics.median(p95s):.1f} ms")
    finally:
        melon.terminate()
        try:
            melon.wait(timeout=20)
        except subprocess.TimeoutExpired:
            melon.kill()
        smtp.stop()


if __name__ == "__main__":
    main()
