import Envelope
import Foundation

/// The local server, written for the tests, that speaks the part of Stripe's API the payments
/// service calls: `Tests/Payments/stripe_test_server.py` on loopback, with Stripe's test payment
/// methods, idempotent replays, 402 declines and 3-D Secure, and controls of its own to script
/// failures and late answers and to say what it did.
public final class StripeTestServer: Sendable {
    public let process: ChildProcess
    public let port: Int
    public let secretKey = "sk_test_melon_\(UUID().uuidString.prefix(8))"
    let control: HTTPTestClient

    public var url: String { "http://127.0.0.1:\(port)" }

    /// The payments service's settings that send its donations here.
    public var environment: [String: String] {
        ["PAYMENTS_STRIPE_URL": url, "PAYMENTS_STRIPE_SECRET_KEY": secretKey, "PAYMENTS_STRIPE_TIMEOUT": "1000"]
    }

    public init(port: Int = Ports.free()) async throws {
        self.port = port
        let secret = secretKey
        process = try ChildProcess(executable: "/usr/bin/python3", arguments: [
            BuildProducts.packageRoot().appendingPathComponent("Tests/Payments/stripe_test_server.py").path, "\(port)", secret,
        ], name: "stripe-test-server")
        control = HTTPTestClient(base: URL(string: "http://127.0.0.1:\(port)")!)
        let process = process
        guard await eventually(timeout: .seconds(20), { process.output.contains("listening") }) else {
            throw SMTPSink.StartFailed(description: "the Stripe test server did not start: \(process.output)")
        }
    }

    /// The next `times` requests whose path starts with `path` answer `status` (500: Stripe's
    /// trouble, which it answers again to every repeat under the request's Idempotency-Key) or,
    /// with `delay`, take effect and answer that many seconds late.
    public func fail(_ path: String, times: Int = 1, status: Int? = nil, delay: Double? = nil) async throws {
        var rule: [String: JSONValue] = ["path": .string(path), "times": .number(Double(times))]
        if let status { rule["status"] = .number(Double(status)) }
        if let delay { rule["delay"] = .number(delay) }
        _ = try await control.post("/_test/fail", json: String(decoding: try JSONValue.object(rule).encoded(), as: UTF8.self))
    }

    /// Completes intent `id`'s 3-D Secure, as its donor would in the app.
    public func authenticate(_ id: String) async throws {
        _ = try await control.post("/_test/authenticate/\(id)", json: "{}")
    }

    /// The intents charged, in order (one entry per charge).
    public func charges() async throws -> [String] {
        guard case .array(let charges)? = try await control.get("/_test/state").json?["charges"] else { return [] }
        return charges.compactMap { if case .string(let id) = $0 { id } else { nil } }
    }

    /// Refunds `amount` cents of intent `intent` (all that is left when nil) as Stripe's dashboard
    /// would: without our metadata. The refund's id.
    public func refundAtDashboard(_ intent: String, amount: Int64? = nil) async throws -> String? {
        var asked: [String: JSONValue] = ["payment_intent": .string(intent)]
        if let amount { asked["amount"] = .number(Double(amount)) }
        let reply = try await control.post("/_test/refund", json: String(decoding: try JSONValue.object(asked).encoded(), as: UTF8.self))
        if case .string(let id)? = reply.json?["id"] { return id }
        return nil
    }

    /// Makes the refunds asked for from now on answer `pending` (or succeed at once again).
    public func refundsPending(_ pending: Bool) async throws {
        _ = try await control.post("/_test/refunds-pending", json: #"{"pending":\#(pending)}"#)
    }

    /// Shows charges without their balance transaction (their fee not known yet) while `pending`.
    public func balancePending(_ pending: Bool) async throws {
        _ = try await control.post("/_test/balance-pending", json: #"{"pending":\#(pending)}"#)
    }

    /// Ends pending refund `id` as `status` (`succeeded` or `failed`), as the bank would.
    public func settleRefund(_ id: String, _ status: String) async throws {
        _ = try await control.post("/_test/settle-refund/\(id)", json: #"{"status":"\#(status)"}"#)
    }

    /// The refunds made, as Stripe keeps them.
    public func refunds() async throws -> [JSONValue] {
        guard case .array(let refunds)? = try await control.get("/_test/state").json?["refunds"] else { return [] }
        return refunds
    }

    /// The API requests received: method, path and Idempotency-Key.
    public func requests() async throws -> [JSONValue] {
        guard case .array(let requests)? = try await control.get("/_test/state").json?["requests"] else { return [] }
        return requests
    }
}
