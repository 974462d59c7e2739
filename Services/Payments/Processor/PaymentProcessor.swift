import Foundation

/// A payment processor with Stripe's PaymentIntents model: an intent is created (with our
/// idempotency key, so a repeat within 24 hours is the same intent), confirmed, and read back. The
/// Stripe client speaks it over HTTP; the sandbox, the local default, decides by the test tokens.
protocol PaymentProcessor: Sendable {
    /// `stripe` or `sandbox`: said in logs and in every donation's reply.
    var name: String { get }
    func create(_ intent: NewIntent, idempotencyKey: String) async throws(ProcessorError) -> PaymentIntent
    func confirm(_ id: String, idempotencyKey: String) async throws(ProcessorError) -> PaymentIntent
    func retrieve(_ id: String) async throws(ProcessorError) -> PaymentIntent
    /// Gives `amount` of succeeded intent `intent` back, under our idempotency key.
    func refund(_ intent: String, amount: Int64, metadata: [String: String], idempotencyKey: String) async throws(ProcessorError) -> ProcessorRefund
    /// The refunds of `intent` the processor knows, made here or elsewhere (its dashboard).
    func refunds(of intent: String) async throws(ProcessorError) -> [ProcessorRefund]
    /// One page of at most `limit` (1 to 100) refunds created since `since`, the newest first, after refund `after`; whether more follow.
    func refunds(createdSince since: Date, after: String?, limit: Int) async throws(ProcessorError) -> (refunds: [ProcessorRefund], more: Bool)
    /// One page of at most `limit` (1 to 100) intents created since `since`, the newest first, after intent `after`; whether more follow.
    func intents(createdSince since: Date, after: String?, limit: Int) async throws(ProcessorError) -> (intents: [PaymentIntent], more: Bool)
    /// The longest one request to the processor may take before it counts as unanswered.
    var patience: Duration { get }
    /// Whether the processor keeps records to reconcile with (the sandbox keeps none).
    var keepsRecords: Bool { get }
    func shutdown() async
}

/// What to charge.
struct NewIntent: Sendable, Equatable {
    /// In the currency's minor unit.
    let amount: Int64
    /// Lowercase ISO 4217, as Stripe writes it.
    let currency: String
    let paymentMethod: String
    /// Ours, kept by the processor: the donation's id.
    let metadata: [String: String]
}

/// A PaymentIntent as the processor answered it.
struct PaymentIntent: Sendable, Equatable {
    enum Status: String, Sendable {
        case requiresPaymentMethod = "requires_payment_method"
        case requiresConfirmation = "requires_confirmation"
        case requiresAction = "requires_action"
        case processing
        case requiresCapture = "requires_capture"
        case canceled
        case succeeded
    }

    let id: String
    /// Nil for a status this client does not know (a newer API): treated as still processing.
    let status: Status?
    let amount: Int64
    let currency: String
    /// Handed to the app for 3-D Secure; never logged or stored.
    let clientSecret: String?
    let nextAction: (type: String, redirectURL: String?)?
    /// What the processor kept, once the charge has its balance transaction.
    let fee: Int64?
    /// Why the last attempt failed.
    let failure: ProcessorFailure?
    let metadata: [String: String]

    static func == (lhs: PaymentIntent, rhs: PaymentIntent) -> Bool {
        lhs.id == rhs.id && lhs.status == rhs.status && lhs.amount == rhs.amount && lhs.fee == rhs.fee && lhs.failure == rhs.failure
            && lhs.nextAction?.type == rhs.nextAction?.type
    }
}

/// A refund as the processor answered it.
struct ProcessorRefund: Sendable, Equatable {
    enum Status: String, Sendable {
        case pending, requiresAction = "requires_action", succeeded, failed, canceled
    }

    let id: String
    /// Nil for a status this client does not know: treated as pending.
    let status: Status?
    let amount: Int64
    let paymentIntent: String?
    /// Ours: the refund's id when we asked for it.
    let metadata: [String: String]
}

/// The processor's own words for a failed payment: logged, never shown.
struct ProcessorFailure: Sendable, Equatable {
    let code: String?
    let declineCode: String?
    let message: String?
}

enum ProcessorError: Error, Sendable {
    /// The card was declined (HTTP 402): the intent, when the processor sent it.
    case declined(ProcessorFailure, intent: PaymentIntent?)
    /// The processor refused the request itself (400, 401, 404, an idempotency key reused with other
    /// parameters): our bug or our configuration, never the donor's.
    case refused(status: Int, ProcessorFailure)
    /// No answer, a timeout or 429: try again later with the same idempotency key.
    case unavailable(String)
    /// The processor's own failure (5xx). Stripe keeps it as the result of the request's idempotency
    /// key and answers it again to every repeat under that key ("including 500 errors",
    /// docs.stripe.com/api/idempotent_requests): try again later, under a new key where one is safe.
    case serverError(status: Int)
}
