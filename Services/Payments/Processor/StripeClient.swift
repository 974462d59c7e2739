import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Stripe's PaymentIntents API over HTTP (docs.stripe.com/api/payment_intents): form-encoded
/// requests with the secret key as a bearer token, an `Idempotency-Key` on every POST (Stripe keeps
/// the first answer for 24 hours and replays it), and the fee read from the charge's balance
/// transaction (`expand[]=latest_charge.balance_transaction`). Card errors (402) are declines;
/// 429, timeouts and lost connections are "try again with the same key"; a 5xx is Stripe's answer
/// to that key from then on (it replays it), so the caller decides whether a new key is safe.
/// Connections come from the process's shared `HTTPClient`, which needs no shutdown.
struct StripeClient: PaymentProcessor {
    let name = "stripe"
    let baseURL: String
    private let secretKey: String
    private let timeout: Duration
    var patience: Duration { timeout }

    /// The API version our parsing follows; Stripe answers in it whatever the account's default.
    static let apiVersion = "2024-06-20"
    static let expandFee = "latest_charge.balance_transaction"

    init(baseURL: String, secretKey: String, timeout: Duration) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.secretKey = secretKey
        self.timeout = timeout
    }

    func create(_ intent: NewIntent, idempotencyKey: String) async throws(ProcessorError) -> PaymentIntent {
        var form = [
            ("amount", String(intent.amount)), ("currency", intent.currency), ("payment_method", intent.paymentMethod),
            // Apple Pay cards need no redirect; without this a confirm would ask for a return_url.
            ("automatic_payment_methods[enabled]", "true"), ("automatic_payment_methods[allow_redirects]", "never"),
        ]
        form += Self.metadata(intent.metadata)
        return try Self.parsed(await call(.POST, "/v1/payment_intents", form: form, idempotencyKey: idempotencyKey), Self.intent)
    }

    func confirm(_ id: String, idempotencyKey: String) async throws(ProcessorError) -> PaymentIntent {
        try Self.parsed(
            await call(.POST, "/v1/payment_intents/\(Self.escaped(id))/confirm", form: [("expand[]", Self.expandFee)], idempotencyKey: idempotencyKey),
            Self.intent)
    }

    func retrieve(_ id: String) async throws(ProcessorError) -> PaymentIntent {
        try Self.parsed(await call(.GET, "/v1/payment_intents/\(Self.escaped(id))", query: [("expand[]", Self.expandFee)]), Self.intent)
    }

    func refund(_ intent: String, amount: Int64, metadata: [String: String], idempotencyKey: String) async throws(ProcessorError) -> ProcessorRefund {
        let form = [("payment_intent", intent), ("amount", String(amount))] + Self.metadata(metadata)
        return try Self.parsed(await call(.POST, "/v1/refunds", form: form, idempotencyKey: idempotencyKey), Self.refund)
    }

    func refunds(of intent: String) async throws(ProcessorError) -> [ProcessorRefund] {
        // A donation is refunded a few times at most: one page of Stripe's largest holds them.
        let list = try await call(.GET, "/v1/refunds", query: [("payment_intent", intent), ("limit", "100")])
        return (list["data"] as? [[String: Any]] ?? []).compactMap(Self.refund)
    }

    func refunds(createdSince since: Date, after: String?, limit: Int) async throws(ProcessorError) -> (refunds: [ProcessorRefund], more: Bool) {
        var query = [("created[gte]", String(Int64(since.timeIntervalSince1970))), ("limit", String(min(max(limit, 1), 100)))]
        if let after { query.append(("starting_after", after)) }
        let list = try await call(.GET, "/v1/refunds", query: query)
        guard list["object"] as? String == "list", let data = list["data"] as? [[String: Any]] else {
            throw .unavailable("the processor answered a list of refunds without its data")
        }
        return (data.compactMap(Self.refund), list["has_more"] as? Bool ?? false)
    }

    func intents(createdSince since: Date, after: String?, limit: Int) async throws(ProcessorError) -> (intents: [PaymentIntent], more: Bool) {
        var query = [
            ("created[gte]", String(Int64(since.timeIntervalSince1970))), ("limit", String(min(max(limit, 1), 100))), ("expand[]", "data." + Self.expandFee),
        ]
        if let after { query.append(("starting_after", after)) }
        let list = try await call(.GET, "/v1/payment_intents", query: query)
        guard list["object"] as? String == "list", let data = list["data"] as? [[String: Any]] else {
            throw .unavailable("the processor answered a list of payment intents without its data")
        }
        return (data.compactMap(Self.intent), list["has_more"] as? Bool ?? false)
    }

    let keepsRecords = true

    func shutdown() async {}

    private func call(_ method: HTTPMethod, _ path: String, query: [(String, String)]) async throws(ProcessorError) -> [String: Any] {
        try await call(method, path + "?" + Self.encoded(query), form: [], idempotencyKey: nil)
    }

    /// The object Stripe answered with a 2xx.
    private func call(_ method: HTTPMethod, _ path: String, form: [(String, String)], idempotencyKey: String?) async throws(ProcessorError)
        -> [String: Any]
    {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(secretKey)")
        request.headers.add(name: "Stripe-Version", value: Self.apiVersion)
        if let idempotencyKey { request.headers.add(name: "Idempotency-Key", value: idempotencyKey) }
        if method == .POST {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: Self.encoded(form)))
        }
        let status: Int, body: Data
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(timeout.milliseconds))
            status = Int(response.status.code)
            body = Data(buffer: try await response.body.collect(upTo: 1 << 20))
        } catch {
            throw .unavailable("\(method.rawValue) \(path.split(separator: "?")[0]): \(error)")
        }
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        switch status {
        case 200..<300:
            return object
        case 402:
            let error = object["error"] as? [String: Any] ?? [:]
            throw .declined(Self.failure(error), intent: (error["payment_intent"] as? [String: Any]).flatMap(Self.intent))
        case 429:
            throw .unavailable("the processor answered \(status)")
        case 500...:
            throw .serverError(status: status)
        default:
            throw .refused(status: status, Self.failure(object["error"] as? [String: Any] ?? [:]))
        }
    }

    /// A PaymentIntent object as Stripe writes it; nil when it is not one.
    static func intent(_ object: [String: Any]) -> PaymentIntent? {
        guard object["object"] as? String == "payment_intent", let id = object["id"] as? String, let amount = (object["amount"] as? NSNumber)?.int64Value
        else { return nil }
        let next = object["next_action"] as? [String: Any]
        let redirect = (next?["redirect_to_url"] as? [String: Any])?["url"] as? String
        let charge = object["latest_charge"] as? [String: Any]
        let fee = ((charge?["balance_transaction"] as? [String: Any])?["fee"] as? NSNumber)?.int64Value
        return PaymentIntent(
            id: id, status: (object["status"] as? String).flatMap(PaymentIntent.Status.init(rawValue:)), amount: amount,
            currency: object["currency"] as? String ?? "", clientSecret: object["client_secret"] as? String,
            nextAction: (next?["type"] as? String).map { (type: $0, redirectURL: redirect) }, fee: fee,
            failure: (object["last_payment_error"] as? [String: Any]).map(failure),
            metadata: object["metadata"] as? [String: String] ?? [:])
    }

    /// A Refund object as Stripe writes it; nil when it is not one.
    static func refund(_ object: [String: Any]) -> ProcessorRefund? {
        guard object["object"] as? String == "refund", let id = object["id"] as? String, let amount = (object["amount"] as? NSNumber)?.int64Value
        else { return nil }
        return ProcessorRefund(
            id: id, status: (object["status"] as? String).flatMap(ProcessorRefund.Status.init(rawValue:)), amount: amount,
            paymentIntent: object["payment_intent"] as? String, metadata: object["metadata"] as? [String: String] ?? [:])
    }

    private static func parsed<T>(_ object: [String: Any], _ parse: ([String: Any]) -> T?) throws(ProcessorError) -> T {
        guard let value = parse(object) else { throw .unavailable("the processor answered without the \(T.self) asked for") }
        return value
    }

    private static func metadata(_ metadata: [String: String]) -> [(String, String)] {
        metadata.sorted { $0.key < $1.key }.map { ("metadata[\($0.key)]", $0.value) }
    }

    static func failure(_ error: [String: Any]) -> ProcessorFailure {
        ProcessorFailure(code: error["code"] as? String, declineCode: error["decline_code"] as? String, message: error["message"] as? String)
    }

    /// `application/x-www-form-urlencoded`, every byte but the unreserved ones escaped.
    static func encoded(_ form: [(String, String)]) -> String {
        form.map { "\(escaped($0.0))=\(escaped($0.1))" }.joined(separator: "&")
    }

    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .init(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? text
    }
}
