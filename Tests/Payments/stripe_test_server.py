"""A local server, written for the tests, that speaks the part of Stripe's API Melon calls.

    python3 stripe_test_server.py PORT SECRET_KEY

Stripe's documented behaviour (docs.stripe.com/api, /idempotency, /testing), as far as we use it:
  POST /v1/payment_intents             form-encoded; amount, currency, payment_method, metadata[...],
                                       automatic_payment_methods[...]; Idempotency-Key replays
  POST /v1/payment_intents/{id}/confirm  by the payment method: Stripe's test methods succeed, ask for
                                       3-D Secure (requires_action), or decline with HTTP 402
                                       (card_error, its code and decline_code, the intent attached)
  GET  /v1/payment_intents/{id}        expand[]=latest_charge.balance_transaction gives the fee
  GET  /v1/payment_intents             created[gte], limit, starting_after: a list, the newest first,
                                       with has_more (expand[]=data.latest_charge.balance_transaction)
  POST /v1/refunds                     payment_intent, amount (all that is left when left out),
                                       metadata[...]: of a succeeded intent only, never beyond what is
                                       left (400 charge_already_refunded / amount_too_large)
  GET  /v1/refunds                     payment_intent, created[gte], limit, starting_after: refunds, the
                                       newest first, with has_more
Authorization: Bearer SECRET_KEY (else 401). An Idempotency-Key seen before with the same
parameters answers the stored response with Idempotent-Replayed: true, a 500 included (Stripe saves
the result of every request whose endpoint began executing: "Subsequent requests with the same key
return the same result, including 500 errors", docs.stripe.com/api/idempotent_requests; a 429 is
not saved); with other parameters, 400 idempotency_error. Fees are 1.5 % + 25 cents (Stripe's
standard EEA card price).

For the tests (not Stripe): POST /_test/fail {"path": prefix, "times": n, "status": 500 or
"delay": seconds} makes the next n matching requests fail (without effect; a 5xx under an
Idempotency-Key is saved as that key's result, as Stripe saves it) or answer late (the request still
takes effect, as a timed-out request at Stripe may have); POST /_test/authenticate/{id} completes an
intent's 3-D Secure as the donor would; POST /_test/refund {"payment_intent", "amount"} refunds as
Stripe's dashboard would (no metadata); POST /_test/refunds-pending {"pending": true} makes new refunds
answer pending, and POST /_test/settle-refund/{id} {"status": "succeeded" or "failed"} ends one;
POST /_test/balance-pending {"pending": true} shows charges without their balance transaction (fee) while set;
GET /_test/state says what the server did (charges,
requests with their idempotency keys). Prints "listening" once it serves. Runs until killed.
"""
import hashlib
import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SUCCEEDS = {"pm_card_visa", "pm_card_mastercard", "pm_card_amex", "pm_card_visa_debit", "tok_visa", "tok_mastercard"}
AUTHENTICATES = {"pm_card_threeDSecure2Required", "pm_card_authenticationRequired"}
DECLINES = {
    "pm_card_visa_chargeDeclined": ("card_declined", "generic_decline", "Your card was declined."),
    "pm_card_visa_chargeDeclinedInsufficientFunds": ("card_declined", "insufficient_funds", "Your card has insufficient funds."),
    "pm_card_chargeDeclinedExpiredCard": ("expired_card", None, "Your card has expired."),
    "pm_card_chargeDeclinedProcessingError": ("processing_error", None, "An error occurred while processing your card."),
}

lock = threading.Lock()
intents = {}
idempotent = {}
failures = []
requests = []
charges = []
refunds = {}
refunds_pending = [False]
balance_pending = [False]


def fee(amount):
    return 25 + amount * 15 // 1000


def expanded(intent, expand):
    body = dict(intent)
    charge = body.get("latest_charge")
    if charge and "latest_charge.balance_transaction" in expand and balance_pending[0]:
        body["latest_charge"] = {"id": charge, "object": "charge", "balance_transaction": None}
    elif charge and "latest_charge.balance_transaction" in expand:
        body["latest_charge"] = {
            "id": charge, "object": "charge",
            "balance_transaction": {"id": "txn_" + charge[3:], "object": "balance_transaction", "amount": intent["amount"],
                                    "fee": fee(intent["amount"]), "net": intent["amount"] - fee(intent["amount"])},
        }
    elif charge and "latest_charge" in expand:
        body["latest_charge"] = {"id": charge, "object": "charge", "balance_transaction": "txn_" + charge[3:]}
    return body


def error(status, kind, code=None, decline=None, message="", intent=None):
    body = {"type": kind, "message": message}
    if code:
        body["code"] = code
    if decline:
        body["decline_code"] = decline
    if intent is not None:
        body["payment_intent"] = intent
    return status, {"error": body}


def create(form):
    try:
        amount = int(form.get("amount", [""])[0])
    except ValueError:
        return error(400, "invalid_request_error", "parameter_invalid_integer", message="Invalid integer: amount")
    if amount < 50:
        return error(400, "invalid_request_error", "amount_too_small", message="Amount must be at least 0.50")
    number = hashlib.sha256(repr(time.time_ns()).encode()).hexdigest()[:24]
    metadata = {k[9:-1]: v[0] for k, v in form.items() if k.startswith("metadata[")}
    intent = {
        "id": "pi_" + number, "object": "payment_intent", "amount": amount, "amount_received": 0,
        "currency": form.get("currency", ["eur"])[0], "client_secret": "pi_%s_secret_%s" % (number, number[:8]),
        "payment_method": form.get("payment_method", [None])[0], "status": "requires_confirmation",
        "next_action": None, "last_payment_error": None, "latest_charge": None, "metadata": metadata, "livemode": False,
        "created": int(time.time()), "amount_refunded": 0,
    }
    if intent["payment_method"] is None:
        intent["status"] = "requires_payment_method"
    intents[intent["id"]] = intent
    return 200, intent


def succeed(intent):
    intent["status"] = "succeeded"
    intent["amount_received"] = intent["amount"]
    intent["next_action"] = None
    intent["latest_charge"] = "ch_" + intent["id"][3:]
    charges.append(intent["id"])


def confirm(intent_id):
    intent = intents.get(intent_id)
    if intent is None:
        return error(404, "invalid_request_error", "resource_missing", message="No such payment_intent: '%s'" % intent_id)
    if intent["status"] in ("succeeded", "requires_action"):
        return 200, intent
    if intent["status"] != "requires_confirmation":
        return error(400, "invalid_request_error", "payment_intent_unexpected_state",
                     message="This PaymentIntent's status is %s" % intent["status"])
    method = intent["payment_method"]
    if method in SUCCEEDS:
        succeed(intent)
        return 200, intent
    if method in AUTHENTICATES:
        intent["status"] = "requires_action"
        intent["next_action"] = {"type": "use_stripe_sdk", "use_stripe_sdk": {"type": "three_d_secure_redirect"}}
        return 200, intent
    code, decline, message = DECLINES.get(method, ("card_declined", "generic_decline", "Your card was declined."))
    intent["status"] = "requires_payment_method"
    intent["last_payment_error"] = {"type": "card_error", "code": code, "decline_code": decline, "message": message}
    return error(402, "card_error", code, decline, message, intent=intent)


def refund(form, metadata=None):
    intent = intents.get(form.get("payment_intent", [""])[0])
    if intent is None:
        return error(400, "invalid_request_error", "resource_missing", message="No such payment_intent")
    if intent["status"] != "succeeded":
        return error(400, "invalid_request_error", "payment_intent_unexpected_state",
                     message="This PaymentIntent does not have a successful charge to refund.")
    held = sum(r["amount"] for r in refunds.values() if r["payment_intent"] == intent["id"] and r["status"] in ("pending", "succeeded"))
    left = intent["amount_received"] - held
    if left <= 0:
        return error(400, "invalid_request_error", "charge_already_refunded", message="Charge has already been refunded.")
    try:
        amount = int(form["amount"][0]) if "amount" in form else left
    except ValueError:
        return error(400, "invalid_request_error", "parameter_invalid_integer", message="Invalid integer: amount")
    if amount <= 0 or amount > left:
        return error(400, "invalid_request_error", "amount_too_large",
                     message="Refund amount (%d) is greater than unrefunded amount on charge (%d)" % (amount, left))
    number = hashlib.sha256(repr(time.time_ns()).encode()).hexdigest()[:24]
    made = {
        "id": "re_" + number, "object": "refund", "amount": amount, "currency": intent["currency"], "charge": intent["latest_charge"],
        "payment_intent": intent["id"], "status": "pending" if refunds_pending[0] else "succeeded", "created": int(time.time()),
        "metadata": metadata if metadata is not None else {k[9:-1]: v[0] for k, v in form.items() if k.startswith("metadata[")},
    }
    refunds[made["id"]] = made
    settle_refund(made, made["status"])
    return 200, made


def settle_refund(made, status):
    made["status"] = status
    intent = intents[made["payment_intent"]]
    intent["amount_refunded"] = sum(r["amount"] for r in refunds.values() if r["payment_intent"] == intent["id"] and r["status"] == "succeeded")


def list_intents(form):
    since = int(form.get("created[gte]", ["0"])[0])
    limit = max(1, min(100, int(form.get("limit", ["10"])[0])))
    newest = sorted((i for i in intents.values() if i["created"] >= since), key=lambda i: (i["created"], i["id"]), reverse=True)
    after = form.get("starting_after", [None])[0]
    if after is not None:
        ids = [i["id"] for i in newest]
        newest = newest[ids.index(after) + 1:] if after in ids else []
    return 200, {"object": "list", "data": newest[:limit], "has_more": len(newest) > limit, "url": "/v1/payment_intents"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Request-Id", "req_" + hashlib.sha256(data).hexdigest()[:14])
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.handle_request("GET", b"")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.handle_request("POST", self.rfile.read(length))

    def handle_request(self, method, raw):
        url = urllib.parse.urlsplit(self.path)
        if url.path.startswith("/_test/"):
            return self.control(method, url.path, raw)
        if self.headers.get("Authorization") != "Bearer " + SECRET:
            return self.answer(*error(401, "invalid_request_error", message="Invalid API Key provided"))
        form = urllib.parse.parse_qs(raw.decode() if method == "POST" else url.query, keep_blank_values=True)
        key = self.headers.get("Idempotency-Key")
        with lock:
            requests.append({"method": method, "path": url.path, "idempotencyKey": key})
            failure = next((f for f in failures if url.path.startswith(f["path"]) and f["times"] > 0), None)
            if failure:
                failure["times"] -= 1
        if failure and "status" in failure:
            status, body = error(failure["status"], "api_error", message="An unknown error occurred (scripted)")
            # Stripe's own failure happens once its endpoint began executing: it is the key's result, replayed to every retry.
            if method == "POST" and key is not None and status >= 500:
                with lock:
                    idempotent.setdefault(key, ((url.path, raw), status, body))
            return self.answer(status, body)
        with lock:
            if method == "POST" and key is not None:
                stored = idempotent.get(key)
                fingerprint = (url.path, raw)
                if stored and stored[0] != fingerprint:
                    status, body = error(400, "idempotency_error",
                                         message="Keys for idempotent requests can only be used with the same parameters they were first used with.")
                    replayed = False
                elif stored:
                    status, body, replayed = stored[1], stored[2], True
                else:
                    status, body = self.act(method, url.path, form)
                    idempotent[key] = (fingerprint, status, body)
                    replayed = False
            else:
                status, body = self.act(method, url.path, form)
                replayed = False
            expand = form.get("expand[]", [])
            if status == 200 and body.get("object") == "payment_intent":
                body = expanded(body, expand)
            elif status == 200 and body.get("object") == "list":
                inner = [e[5:] for e in expand if e.startswith("data.")]
                body = dict(body, data=[expanded(i, inner) if i.get("object") == "payment_intent" else i for i in body["data"]])
            body = json.loads(json.dumps(body))
        if failure and "delay" in failure:
            time.sleep(failure["delay"])
        self.answer(status, body, [("Idempotent-Replayed", "true")] if replayed else [])

    def act(self, method, path, form):
        parts = path.strip("/").split("/")
        if method == "POST" and parts == ["v1", "payment_intents"]:
            return create(form)
        if method == "POST" and len(parts) == 4 and parts[:2] == ["v1", "payment_intents"] and parts[3] == "confirm":
            return confirm(parts[2])
        if method == "GET" and parts == ["v1", "payment_intents"]:
            return list_intents(form)
        if method == "POST" and parts == ["v1", "refunds"]:
            return refund(form)
        if method == "GET" and parts == ["v1", "refunds"]:
            intent, since = form.get("payment_intent", [None])[0], int(form.get("created[gte]", ["0"])[0])
            mine = sorted((r for r in refunds.values() if (intent is None or r["payment_intent"] == intent) and r["created"] >= since),
                          key=lambda r: (r["created"], r["id"]), reverse=True)
            after = form.get("starting_after", [None])[0]
            if after is not None:
                ids = [r["id"] for r in mine]
                mine = mine[ids.index(after) + 1:] if after in ids else []
            limit = max(1, min(100, int(form.get("limit", ["10"])[0])))
            return 200, {"object": "list", "data": mine[:limit], "has_more": len(mine) > limit, "url": "/v1/refunds"}
        if method == "GET" and len(parts) == 3 and parts[:2] == ["v1", "payment_intents"]:
            intent = intents.get(parts[2])
            if intent is None:
                return error(404, "invalid_request_error", "resource_missing", message="No such payment_intent: '%s'" % parts[2])
            return 200, intent
        return error(404, "invalid_request_error", message="Unrecognized request URL (%s: %s)" % (method, path))

    def control(self, method, path, raw):
        with lock:
            if method == "POST" and path == "/_test/fail":
                failures.append(json.loads(raw))
                return self.answer(200, {"scripted": len(failures)})
            if method == "POST" and path.startswith("/_test/authenticate/"):
                intent = intents.get(path.rsplit("/", 1)[1])
                if intent is None or intent["status"] != "requires_action":
                    return self.answer(404, {"error": {"message": "no intent waiting for 3-D Secure"}})
                succeed(intent)
                return self.answer(200, intent)
            if method == "POST" and path == "/_test/refund":
                asked = json.loads(raw)
                form = {"payment_intent": [asked["payment_intent"]]}
                if "amount" in asked:
                    form["amount"] = [str(asked["amount"])]
                return self.answer(*refund(form, metadata={}))
            if method == "POST" and path == "/_test/balance-pending":
                balance_pending[0] = bool(json.loads(raw)["pending"])
                return self.answer(200, {"pending": balance_pending[0]})
            if method == "POST" and path == "/_test/refunds-pending":
                refunds_pending[0] = bool(json.loads(raw)["pending"])
                return self.answer(200, {"pending": refunds_pending[0]})
            if method == "POST" and path.startswith("/_test/settle-refund/"):
                made = refunds.get(path.rsplit("/", 1)[1])
                if made is None or made["status"] != "pending":
                    return self.answer(404, {"error": {"message": "no pending refund"}})
                settle_refund(made, json.loads(raw)["status"])
                return self.answer(200, made)
            if method == "GET" and path == "/_test/state":
                return self.answer(200, {"charges": charges, "requests": requests, "refunds": list(refunds.values())})
        self.answer(404, {"error": {"message": "no such control"}})


if __name__ == "__main__":
    port, SECRET = int(sys.argv[1]), sys.argv[2]
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print("listening", flush=True)
    server.serve_forever()
