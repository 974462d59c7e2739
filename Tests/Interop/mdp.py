"""Majordomo Protocol 0.1 (ZeroMQ RFC 7, https://rfc.zeromq.org/spec/7/) peers in Python.

Written from the RFC's text, not from Melon's Swift code, to check that Melon's broker and worker
speak the protocol as any other implementation would.
"""
import time

import zmq

C_CLIENT = b"MDPC01"
W_WORKER = b"MDPW01"
W_READY, W_REQUEST, W_REPLY, W_HEARTBEAT, W_DISCONNECT = b"\x01", b"\x02", b"\x03", b"\x04", b"\x05"


class Client:
    """RFC 7 client over a REQ socket: one request at a time (the REQ socket adds the empty frame)."""

    def __init__(self, endpoint, timeout_ms=5000):
        self.ctx = zmq.Context()
        self.socket = self.ctx.socket(zmq.REQ)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.connect(endpoint)
        self.timeout_ms = timeout_ms

    def request(self, service, *body):
        """Sends [MDPC01, service, body...]; returns the reply body frames, or None on timeout."""
        self.socket.send_multipart([C_CLIENT, service] + list(body))
        if not self.socket.poll(self.timeout_ms):
            return None
        frames = self.socket.recv_multipart()
        assert frames[0] == C_CLIENT, frames
        assert frames[1] == service, frames
        return frames[2:]

    def close(self):
        self.socket.close()
        self.ctx.term()


class Worker:
    """RFC 7 worker over a DEALER socket, with heartbeats and reconnection."""

    def __init__(self, endpoint, service, heartbeat_ms=1000, liveness=3):
        self.ctx = zmq.Context()
        self.endpoint = endpoint
        self.service = service
        self.heartbeat_ms = heartbeat_ms
        self.liveness = liveness
        self.socket = None
        self.connect()

    def connect(self):
        if self.socket is not None:
            self.socket.close(0)
        self.socket = self.ctx.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.connect(self.endpoint)
        self.send(W_READY, self.service)
        self.remaining = self.liveness
        self.heartbeat_at = time.monotonic() + self.heartbeat_ms / 1000

    def send(self, command, *args):
        self.socket.send_multipart([b"", W_WORKER, command] + list(args))

    def serve(self, handler, stop_after=None):
        """Answers requests with handler(body_frames) -> body_frames until stop_after requests."""
        served = 0
        while stop_after is None or served < stop_after:
            if self.socket.poll(self.heartbeat_ms):
                frames = self.socket.recv_multipart()
                self.remaining = self.liveness
                assert frames[0] == b"" and frames[1] == W_WORKER, frames
                command = frames[2]
                if command == W_REQUEST:
                    client, empty, body = frames[3], frames[4], frames[5:]
                    assert empty == b""
                    self.send(W_REPLY, client, b"", *handler(body))
                    served += 1
                elif command == W_DISCONNECT:
                    self.connect()
                elif command != W_HEARTBEAT:
                    raise AssertionError("unexpected command %r" % command)
            else:
                self.remaining -= 1
                if self.remaining == 0:
                    self.connect()
            if time.monotonic() > self.heartbeat_at:
                self.send(W_HEARTBEAT)
                self.heartbeat_at = time.monotonic() + self.heartbeat_ms / 1000
        return served

    def close(self):
        self.send(W_DISCONNECT)
        self.socket.close(linger=500)
        self.ctx.term()
