"""A real SMTP server for tests (aiosmtpd, Debian's python3-aiosmtpd).

    python3 smtp_sink.py PORT FOLDER [--starttls CERT KEY | --tls CERT KEY] [--auth USER:PASSWORD]

Stores each accepted message's DATA, byte for byte, as FOLDER/<pid>-<n>.eml with the envelope in
FOLDER/<pid>-<n>.json (from, to, whether the session was encrypted, who logged in). Refuses
recipients whose address contains "reject" with 550, permanently.

--starttls offers STARTTLS with the certificate; --tls speaks TLS from the first byte (smtps).
--auth requires AUTH (PLAIN or LOGIN, only over TLS) with these credentials.
Runs until killed.
"""
import argparse
import asyncio
import json
import os
import ssl
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Sink:
    def __init__(self, folder):
        self.folder = folder
        self.count = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if "reject" in address:
            return "550 5.1.1 mailbox unavailable: " + address
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        base = os.path.join(self.folder, "%d-%d" % (os.getpid(), self.count))
        with open(base + ".eml", "wb") as f:
            f.write(envelope.original_content)
        login = session.auth_data.decode() if isinstance(session.auth_data, bytes) else session.auth_data
        # STARTTLS sets session.ssl; with --tls the transport itself is TLS.
        encrypted = session.ssl is not None or server.transport.get_extra_info("ssl_object") is not None
        with open(base + ".json", "w") as f:
            json.dump({"from": envelope.mail_from, "to": envelope.rcpt_tos, "tls": encrypted, "login": login}, f)
        return "250 Message accepted for delivery"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("folder")
    parser.add_argument("--starttls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--auth", metavar="USER:PASSWORD")
    args = parser.parse_args()
    os.makedirs(args.folder, exist_ok=True)

    options = {}
    if args.starttls or args.tls:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(*(args.starttls or args.tls))
        if args.starttls:
            options["tls_context"] = context
        else:
            options["ssl_context"] = context
    if args.auth:
        user, password = args.auth.split(":", 1)

        def authenticate(server, session, envelope, mechanism, data):
            ok = isinstance(data, LoginPassword) and data.login.decode() == user and data.password.decode() == password
            # handled=False: aiosmtpd answers the failure itself (535).
            return AuthResult(success=ok, handled=ok, auth_data=data.login if ok else None)

        # With --tls the whole connection is encrypted before aiosmtpd sees it, so it cannot tell;
        # with --starttls it refuses AUTH until STARTTLS.
        options.update(authenticator=authenticate, auth_required=True, auth_require_tls=not args.tls)

    controller = Controller(Sink(args.folder), hostname="127.0.0.1", port=args.port, **options)
    controller.start()
    print("listening", args.port, flush=True)
    try:
        asyncio.get_event_loop().run_forever()
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
