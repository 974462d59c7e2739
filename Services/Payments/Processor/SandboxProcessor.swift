import Crypto
import Foundation

/// The local default processor: it charges nobody. It approves Stripe's documented test payment
/// methods, asks for 3-D Secure on the ones that do, declines the declining ones as Stripe does,
/// and declines everything else. Stateless: an intent's id carries what it needs (made from the
/// idempotency key, so a repeat is the same intent), and a restart loses nothing. Its fee is an
/// illustration (1.5 % + 0.25, Stripe's standard EEA card price), not anyone's price list.
struct SandboxProcessor: PaymentProcessor {
    let name = "sandbox"

    enum Outcome: String, Sendable {
        case succeeds, authenticates, declined, insufficientFunds, expired, processingError
    }

    /// Stripe's test payment methods and tokens (docs.stripe.com/testing) and what they do here.
    static let testMethods: [String: Outcome] = [
        "pm_card_visa": .succeeds, "pm_card_mastercard": .succeeds, "pm_card_amex": .succeeds, "pm_card_visa_debit": .succeeds,
        "tok_visa": .succeeds, "tok_mastercard": .succeeds, "pm_card_bypassPending": .succeeds,
        "pm_card_threeDSecure2Required": .authenticates, "pm_card_authenticationRequired": .authenticates, "tok_threeDSecure2Required": .authenticates,
        "pm_card_visa_chargeDeclined": .declined, "tok_chargeDeclined": .declined, "pm_card_visa_chargeDeclinedLostCard": .declined,
        "pm_card_visa_chargeDeclinedStolenCard": .declined,
        "pm_card_visa_chargeDeclinedInsufficientFunds": .insufficientFunds, "tok_chargeDeclinedInsufficientFunds": .insufficientFunds,
        "pm_card_chargeDeclinedExpiredCard": .expired, "tok_chargeDeclinedExpiredCard": .expired,
        "pm_card_chargeDeclinedProcessingError": .processingError, "tok_chargeDeclinedProcessingError": .processingError,
    ]

    static func fee(_ amount: Int64) -> Int64 { 25 + amount * 15 / 1_000 }

    func create(_ intent: NewIntent, idempotencyKey: String) async throws(ProcessorError) -> PaymentIntent {
        let outcome = Self.testMethods[intent.paymentMethod] ?? .declined
        let hash = SHA256.hash(data: Data(idempotencyKey.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        return Self.intent("pi_sandbox_\(hash)_\(outcome.rawValue)_\(intent.amount)_\(intent.currency)", .requiresConfirmation, metadata: intent.metadata)
    }

    func confirm(_ id: String, idempotencyKey: String) async throws(ProcessorError) -> PaymentIntent {
        let (outcome, _, _) = try Self.parts(id)
        switch outcome {
        case .succeeds: return try Self.read(id, .succeeded)
        case .authenticates: return try Self.read(id, .requiresAction)
        default:
            let failure = try Self.failure(outcome)
            throw .declined(failure, intent: try Self.read(id, .requiresPaymentMethod, failure: failure))
        }
    }

    /// A 3-D Secure intent read back has been authenticated (the app said it finished).
    func retrieve(_ id: String) async throws(ProcessorError) -> PaymentIntent {
        let (outcome, _, _) = try Self.parts(id)
        switch outcome {
        case .succeeds, .authenticates: return try Self.read(id, .succeeded)
        default: return try Self.read(id, .requiresPaymentMethod, failure: try Self.failure(outcome))
        }
    }

    /// Refunds a succeeded sandbox intent (up to its amount; the service holds what is left): the
    /// refund's id is made from the idempotency key, so a repeat is the same refund.
    func refund(_ intent: String, amount: Int64, metadata: [String: String], idempotencyKey: String) async throws(ProcessorError) -> ProcessorRefund {
        let (outcome, charged, _) = try Self.parts(intent)
        guard outcome == .succeeds || outcome == .authenticates else {
            throw .refused(status: 400, ProcessorFailure(code: "charge_not_succeeded", declineCode: nil, message: "This intent was not charged. (sandbox)"))
        }
        guard (1...charged).contains(amount) else {
            throw .refused(status: 400, ProcessorFailure(code: "amount_too_large", declineCode: nil, message: "Refund amount is greater than the charge. (sandbox)"))
        }
        let hash = SHA256.hash(data: Data(idempotencyKey.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        return ProcessorRefund(id: "re_sandbox_\(hash)_\(amount)", status: .succeeded, amount: amount, paymentIntent: intent, metadata: metadata)
    }

    /// The sandbox keeps no records: it cannot list what it refunded or charged.
    func refunds(of intent: String) async throws(ProcessorError) -> [ProcessorRefund] { [] }

    func refunds(createdSince since: Date, after: String?, limit: Int) async throws(ProcessorError) -> (refunds: [ProcessorRefund], more: Bool) { ([], false) }

    func intents(createdSince since: Date, after: String?, limit: Int) async throws(ProcessorError) -> (intents: [PaymentIntent], more: Bool) { ([], false) }

    let keepsRecords = false
    /// It answers at once.
    let patience = Duration.seconds(1)

    func shutdown() async {}

    private static func failure(_ outcome: Outcome) throws(ProcessorError) -> ProcessorFailure {
        switch outcome {
        case .declined: ProcessorFailure(code: "card_declined", declineCode: "generic_decline", message: "Your card was declined. (sandbox)")
        case .insufficientFunds:
            ProcessorFailure(code: "card_declined", declineCode: "insufficient_funds", message: "Your card has insufficient funds. (sandbox)")
        case .expired: ProcessorFailure(code: "expired_card", declineCode: nil, message: "Your card has expired. (sandbox)")
        case .processingError: ProcessorFailure(code: "processing_error", declineCode: nil, message: "An error occurred while processing your card. (sandbox)")
        case .succeeds, .authenticates: throw .refused(status: 400, ProcessorFailure(code: "sandbox", declineCode: nil, message: "not a failure"))
        }
    }

    private static func parts(_ id: String) throws(ProcessorError) -> (Outcome, Int64, String) {
        let parts = id.split(separator: "_").map(String.init)
        guard parts.count == 6, parts[0] == "pi", parts[1] == "sandbox", let outcome = Outcome(rawValue: parts[3]), let amount = Int64(parts[4]) else {
            throw .refused(status: 404, ProcessorFailure(code: "resource_missing", declineCode: nil, message: "No such payment_intent: '\(id)' (sandbox)"))
        }
        return (outcome, amount, parts[5])
    }

    private static func read(_ id: String, _ status: PaymentIntent.Status, failure: ProcessorFailure? = nil) throws(ProcessorError) -> PaymentIntent {
        let (_, amount, currency) = try parts(id)
        return intent(id, status, amount: amount, currency: currency, failure: failure)
    }

    private static func intent(_ id: String, _ status: PaymentIntent.Status, amount: Int64? = nil, currency: String? = nil,
                               failure: ProcessorFailure? = nil, metadata: [String: String] = [:]) -> PaymentIntent {
        let parts = id.split(separator: "_").map(String.init)
        let amount = amount ?? Int64(parts[4]) ?? 0
        return PaymentIntent(
            id: id, status: status, amount: amount, currency: currency ?? parts[5], clientSecret: "\(id)_secret_sandbox",
            nextAction: status == .requiresAction ? (type: "use_stripe_sdk", redirectURL: nil) : nil,
            fee: status == .succeeded ? fee(amount) : nil, failure: failure, metadata: metadata)
    }
}
