import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Stripe's PaymentIntents API over HTTP (docs.stripe.com/api/payment_intents): form-encoded
/// requests with the secret key as a bearer token, an `Idempotency-Key` on every POST (Stripe keeps
/// the first answer for 24 hours and replays it), and the fee read from the charge's balance
/// transaction (`expand[]=latest_charge.balance_transaction`). Card errors (402) are declines;
/// 429, 5xx, timeouts and lost connections are "try again with the same key". Connections come
/// from the process's shared `HTTPClient`, which needs no shutdown.
struct StripeClient: PaymentProcessor {
    let name = "stripe"
    let baseURL: String
    private let secretKey: String
    private let timeout: Duration

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
        form += intent.metadata.sorted { $0.key < $1.key }.map { ("metadata[\($0.key)]", $0.value) }
        return try await call(.POST, "/v1/payment_intents", form: form, idempotencyKey: idempotencyKey)
    }

    func confirm(_ id: String, idempotencyKey: String) async throws(ProcessorError) -> PaymentIntent {
        try await call(.POST, "/v1/payment_intents/\(Self.escaped(id))/confirm", form: [("expand[]", Self.expandFee)], idempotencyKey: idempotencyKey)
    }

    func retrieve(_ id: String) async throws(ProcessorError) -> PaymentIntent {
        try await call(.GET, "/v1/payment_intents/\(Self.escaped(id))?\(Self.encoded([("expand[]", Self.expandFee)]))", form: [], idempotencyKey: nil)
    }

    func shutdown() async {}

    private func call(_ method: HTTPMethod, _ path: String, form: [(String, String)], idempotencyKey: String?) async throws(ProcessorError)
        -> PaymentIntent
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
            guard let intent = Self.intent(object) else { throw .unavailable("the processor answered \(status) without a payment intent") }
            return intent
        case 402:
            let error = object["error"] as? [String: Any] ?? [:]
            throw .declined(Self.failure(error), intent: (error["payment_intent"] as? [String: Any]).flatMap(Self.intent))
        case 429, 500...:
            throw .unavailable("the processor answered \(status)")
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
