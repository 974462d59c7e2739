#!/usr/bin/python3
"""Chat messages to open WebSockets, at a fixed rate, through a running `melon`.

Starts `melon` (the binary given) on a database you name, with its mail going to an SMTP server
(aiosmtpd) this script runs, and its live events on (melon's in-process proxy). Setup: --pairs pairs
of Nebula accounts register (codes from the mail) and open a private conversation each; each
recipient opens a socket at /v1/live/chat (a WebSocket client written here, RFC 6455, over a plain
socket) and waits for `ready`.

Send to socket: an open loop posts messages (each sender to its recipient, in turn) at --rate a
second for --duration seconds from --threads threads; a message's latency counts from when it was
due to when its item arrived on the recipient's socket (no coordinated omission). Prints per run
the rate reached, the deliveries a second, p50, p99, max, and messages lost (not on a socket within
5 s) or refused. Then memory per socket: melon's resident memory before and after --idle more sockets
are open and ready (spread over all the accounts: the gateway lets an account hold 10), divided by
their number.

  .build/release/melon must exist (swift build -c release --product melon)
  /usr/bin/python3 Benchmarks/ChatLoad/chat-load.py --melon .build/release/melon --database-url postgres://... --runs 3
"""
import base64, json, os, socket, statistics, struct, sys, threading, time, uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Support"))
from melon_bench import Client, Melon, arguments, percentile, sign_in


class Socket:
    """A client's WebSocket: its text frames' JSON, read on a thread of its own, answered pings."""

    def __init__(self, base, path, token, on_frame):
        host, port = base.removeprefix("http://").split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer {token}\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                sys.exit("phase setup: the socket closed during the upgrade")
            head += chunk
        status, self.buffer = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in status.split(b"\r\n")[0]:
            sys.exit(f"phase setup: no upgrade: {status.splitlines()[0]!r}")
        self.sock.settimeout(None)
        self.on_frame, self.lock = on_frame, threading.Lock()
        threading.Thread(target=self.read, daemon=True).start()

    def exactly(self, count):
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def send(self, opcode, payload=b""):
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        with self.lock:
            self.sock.sendall(bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked)

    def read(self):
        try:
            while True:
                first, second = self.exactly(2)
                length = second & 0x7F
                if length == 126:
                    length = struct.unpack(">H", self.exactly(2))[0]
                elif length == 127:
                    length = struct.unpack(">Q", self.exactly(8))[0]
                payload = self.exactly(length)
                opcode = first & 0x0F
                if opcode == 0x1:
                    self.on_frame(json.loads(payload), time.monotonic())
                elif opcode == 0x9:
                    self.send(0xA, payload)
                elif opcode == 0x8:
                    return
        except (EOFError, OSError):
            return

    def close(self):
        try:
            self.send(0x8, struct.pack(">H", 1000))
            self.sock.close()
        except OSError:
            pass


def resident_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    parser = arguments(__doc__)
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--rate", type=float, default=50)
    parser.add_argument("--duration", type=float, default=20)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--idle", type=int, default=180, help="sockets opened to measure memory per socket (9 per account at most)")
    args = parser.parse_args()
    # The in-process proxy carries the live events (the shared helper turns it off for the other benchmarks).
    with Melon(args.melon, args.database_url, extra={"EVENTS_ENDPOINT": "inproc://melon-events"}) as melon:
        run = uuid.uuid4().hex[:6]
        pairs = []
        for number in range(args.pairs):
            sender = sign_in(melon, f"s{number}-{run}@example.org", app="nebula")
            recipient = sign_in(melon, f"r{number}-{run}@example.org", app="nebula")
            receiving = Client(melon.base, recipient)
            receiving.expect("setup", "GET", "/v1/conversations")
            name = receiving.expect("setup", "GET", "/v1/me")["username"]
            conversation = Client(melon.base, sender).expect("setup", "POST", "/v1/conversations", {"username": name})["id"]
            pairs.append((sender, recipient, conversation))

        arrived, arrival_lock = {}, threading.Lock()

        def on_frame(frame, at):
            text = ((frame.get("data") or {}).get("message") or {}).get("text")
            if text:
                with arrival_lock:
                    arrived[text] = at

        ready = threading.Event()
        sockets = []
        for _, recipient, _ in pairs:
            readiness = threading.Event()
            sockets.append(Socket(melon.base, "/v1/live/chat", recipient,
                                  lambda frame, at, r=readiness: r.set() if frame.get("type") == "ready" else on_frame(frame, at)))
            if not readiness.wait(10):
                sys.exit("phase setup: a socket said no ready within 10 s")
        ready.set()

        for number in range(args.runs):
            count = int(args.rate * args.duration)
            start = time.monotonic() + 0.2
            sent, refused, lock, next_index = {}, [0], threading.Lock(), [0]

            def work(worker):
                clients = {}
                while True:
                    with lock:
                        index = next_index[0]
                        next_index[0] += 1
                    if index >= count:
                        return
                    sender, _, conversation = pairs[index % len(pairs)]
                    client = clients.setdefault(sender, Client(melon.base, sender))
                    due = start + index / args.rate
                    wait = due - time.monotonic()
                    if wait > 0:
                        time.sleep(wait)
                    text = f"m{number}-{index}"
                    with lock:
                        sent[text] = due
                    try:
                        status, _ = client.send("POST", f"/v1/conversations/{conversation}/messages", {"text": text})
                    except Exception:
                        status = 0
                        clients[sender] = Client(melon.base, sender)
                    if status != 201:
                        with lock:
                            refused[0] += 1

            workers = [threading.Thread(target=work, args=(n,)) for n in range(args.threads)]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                with arrival_lock:
                    if all(text in arrived for text in sent):
                        break
                time.sleep(0.05)
            with arrival_lock:
                latencies = [(arrived[text] - due) * 1000 for text, due in sent.items() if text in arrived]
                last = max((arrived[text] for text in sent if text in arrived), default=start)
            lost = len(sent) - len(latencies)
            taken = last - start
            print(f"run {number + 1}: {count} messages at {args.rate:g}/s: reached {count / taken:.1f}/s, "
                  f"{len(latencies) / taken:.1f} delivered/s, p50 {statistics.median(latencies):.1f} ms, "
                  f"p99 {percentile(latencies, 99):.1f} ms, max {max(latencies):.1f} ms, lost {lost}, refused {refused[0]}", flush=True)

        # Memory per open socket: more sockets of the same accounts, each caught up and ready.
        before = resident_kib(melon.process.pid)
        idle, opened = [], threading.Semaphore(0)
        accounts = [sender for sender, _, _ in pairs] + [recipient for _, recipient, _ in pairs]
        if args.idle > 9 * len(accounts):
            sys.exit(f"phase memory: {len(accounts)} accounts hold at most {9 * len(accounts)} more sockets")
        for index in range(args.idle):
            idle.append(Socket(melon.base, "/v1/live/chat", accounts[index % len(accounts)],
                               lambda frame, at: opened.release() if frame.get("type") == "ready" else None))
        for _ in range(args.idle):
            if not opened.acquire(timeout=30):
                sys.exit("phase memory: a socket said no ready within 30 s")
        time.sleep(2)
        after = resident_kib(melon.process.pid)
        print(f"memory: {args.idle} more sockets open: resident {before / 1024:.1f} MiB before, {after / 1024:.1f} MiB after, "
              f"{(after - before) / args.idle:.1f} KiB per socket", flush=True)
        for open_socket in sockets + idle:
            open_socket.close()


if __name__ == "__main__":
    main()
