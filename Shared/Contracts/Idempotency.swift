/// What a repeated request (a client's retry with the same `Idempotency-Key`, or the broker handing
/// a request to a second worker) does, declared by each operation that changes something.
public enum Idempotency: Sendable, Equatable {
    /// Whose keys are kept apart.
    public enum Scope: String, Sendable {
        /// Each caller (`authid`) has its own keys; anonymous callers share one space. The default.
        case caller
        /// One space for the whole operation (a service-to-service call, deduplicated on its key).
        case operation
    }

    /// The worker runtime keeps the first reply with the key and a fingerprint of the request (its
    /// secret fields left out), in the transaction that makes the change: a repeat gets that reply
    /// without acting again; the same key with another request is `conflict`.
    case stored(Scope)
    /// A repeat is harmless by the operation's nature and nothing is kept, with the reason (a reply
    /// that holds secrets, say, must not be stored).
    case repeatable(because: String)

    /// The reply is stored, per caller.
    public static func stored() -> Idempotency { .stored(.caller) }

    /// What a repeat of an operation with `idempotency` does, as the API document and the READMEs say it.
    public static func repeatEffect(_ idempotency: Idempotency?) -> String {
        switch idempotency {
        case .stored(.caller)?: "the stored reply (keys per caller)"
        case .stored(.operation)?: "the stored reply"
        case .repeatable(let reason)?: "acts again: \(reason)"
        case nil: "reads only"
        }
    }
}
