import ServiceSupport

extension Setting {
    public static let idempotencyRetention = Setting(
        "idempotency.retention", default: "86400000",
        help: "Milliseconds a stored reply answers repeats of its request (the Idempotency-Key window); then it is deleted.", kind: .milliseconds(60_000...(30 * 86_400_000)))
}
