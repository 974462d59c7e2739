"""What the Python benchmarks share: their common arguments, a running `melon` with its mail going
to an SMTP server (aiosmtpd) in this process, JSON over HTTP, and percentiles."""
import argparse, base64, email, http.client, json, os, re, socket, subprocess, sys, threading, time, urllib.error, urllib.request, uuid
from email import policy

from aiosmtpd.controller import Controller


class Mailbox:
    """What the SMTP server accepted: when each recipient's mail ended DATA, and its text."""

    def __init__(self):
        self.lock = threading.Condition()
        self.at, self.text = {}, {}

    async def handle_DATA(self, server, session, envelope):
        now = time.monotonic()
        with self.lock:
            for rcpt in envelope.rcpt_tos:
                self.at[rcpt.lower()] = now
                self.text.setdefault(rcpt.lower(), []).append(envelope.content.decode("utf-8", "replace"))
            self.lock.notify_all()
        return "250 OK"

    def wait(self, address, timeout, count=1):
        """When the `count`th mail to `address` arrived (None past `timeout` seconds)."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while len(self.text.get(address, [])) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.lock.wait(left)
            return self.at[address]


PASSWORD = "a long bench pass phrase"


def code_in(message):
    text = email.message_from_string(message, policy=policy.default).get_body(("plain",)).get_content()
    found = re.search(r"\sis ([0-9]{6})\.", text)
    if not found:
        sys.exit("phase setup: no code in the mail")
    return found.group(1)


def make_account(melon, address):
    """Registers and verifies `address` (its code read from the mail), with PASSWORD."""
    status, reply = melon.post("/v1/auth/register", {
        "email": address, "password": PASSWORD, "displayName": "Bench", "username": "b" + uuid.uuid4().hex[:20]})
    if status != 202 or melon.mailbox.wait(address, 30) is None:
        sys.exit(f"phase setup: registering {address} answered {status}, or its code never came")
    code = code_in(melon.mailbox.text[address][-1])
    status, _ = melon.post("/v1/auth/verify-email", {"email": address, "code": code, "registration": reply["registration"]})
    if status != 200:
        sys.exit(f"phase setup: verifying {address} answered {status}")


def arguments(doc):
    """A parser with what every benchmark takes (--melon, --database-url, --runs), described by the
    first line of the script's `doc`; the script adds its own."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--melon", required=True, help="the melon executable")
    parser.add_argument("--database-url", required=True, help="a PostgreSQL database melon may migrate and write")
    parser.add_argument("--runs", type=int, default=3)
    return parser


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url, body):
    """POSTs `body` as JSON: (status, the reply's JSON or None)."""
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.loads(reply.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


class Melon:
    """`melon` (the binary given) on `database_url`, mailing to a Mailbox; `extra` adds settings."""

    def __init__(self, executable, database_url, extra=None):
        self.mailbox = Mailbox()
        smtp_port, http_port = free_port(), free_port()
        self.smtp = Controller(self.mailbox, hostname="127.0.0.1", port=smtp_port)
        self.smtp.start()
        environment = dict(os.environ,
                           HTTP_PORT=str(http_port), EVENTS_ENDPOINT="",
                           DATABASE_URL=database_url, SMTP_URL=f"smtp://127.0.0.1:{smtp_port}",
                           MAIL_FROM="Melon <no-reply@melon.example>", REFUND_CONTACT_EMAIL="refunds@melon.example",
                           AUTH_KEY_ENCRYPTION_KEY=base64.b64encode(os.urandom(32)).decode(),
                           TAX_FORM_KEY=base64.b64encode(os.urandom(32)).decode(),
                           MARKETPLACE_CHAT_KEY=base64.b64encode(os.urandom(32)).decode(),
                           # Every request comes from this one address: the per-network limits would stop it.
                           AUTH_ATTEMPTS_PER_IP="100000", LOG_LEVEL="warning")
        environment.update(extra or {})
        self.process = subprocess.Popen([executable], env=environment, stdout=subprocess.DEVNULL, stderr=open(os.environ.get("MELON_BENCH_LOG", os.devnull), "w"))
        self.base = f"http://127.0.0.1:{http_port}"

    def __enter__(self):
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(self.base + "/readyz", timeout=2) as reply:
                    if reply.status == 200:
                        return self
            except Exception:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.__exit__(None, None, None)
                sys.exit("phase start: melon was not ready within 60 s")
            time.sleep(0.2)

    def __exit__(self, *_):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.smtp.stop()

    def post(self, path, body):
        return post(self.base + path, body)


class Client:
    """JSON over one keep-alive HTTP connection to melon, as one signed-in app."""

    def __init__(self, base, token=None):
        host, port = base.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=30)
        self.token = token

    def send(self, method, path, body=None, extra=None):
        headers = {"Content-Type": "application/json", **(extra or {})}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        self.connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        reply = self.connection.getresponse()
        data = reply.read()
        return reply.status, (json.loads(data) if data else None)

    def expect(self, phase, method, path, body=None, status=(200, 201, 202)):
        got, reply = self.send(method, path, body)
        if got not in status:
            sys.exit(f"phase {phase}: {method} {path} answered {got}: {reply}")
        return reply


def sign_in(melon, address, app="melon"):
    """A new account's access token, logged in to `app`."""
    make_account(melon, address)
    status, reply = melon.post("/v1/auth/login", {"email": address, "password": PASSWORD, "app": app})
    if status != 200:
        sys.exit(f"phase setup: logging {address} in answered {status}")
    return reply["accessToken"]


def psql(database_url, sql):
    """Runs `sql` with psql; returns its output (with \\timing lines)."""
    done = subprocess.run(["psql", database_url, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"psql failed: {done.stderr}")
    return done.stdout


def open_loop(base, tokens, paths, rate, duration, threads, send=None):
    """(latencies in ms from each request's due time, errors, seconds taken) for rate × duration GETs
    of `paths` in turn, or calls of `send(client, index)`, which answers whether the request did."""
    count = int(rate * duration)
    start = time.monotonic() + 0.2
    latencies, errors, lock, next_index = [], [0], threading.Lock(), [0]

    def work(number):
        client = Client(base, tokens[number % len(tokens)])
        while True:
            with lock:
                index = next_index[0]
                next_index[0] += 1
            if index >= count:
                return
            due = start + index / rate
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            try:
                status = (200 if send(client, index) else 0) if send else client.send("GET", paths[index % len(paths)])[0]
            except Exception:
                status = 0
                client = Client(base, tokens[number % len(tokens)])
            finished = time.monotonic()
            with lock:
                latencies.append((finished - due) * 1000)
                if status != 200:
                    errors[0] += 1

    workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return latencies, errors[0], time.monotonic() - start
