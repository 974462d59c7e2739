import PostgresSupport
import ServiceLifecycle
import ServiceSupport

/// What a service's definition builds: its handlers, its periodic jobs and its other long-running
/// parts (a delivery loop, say). The kit adds the worker runtime, the outbox relay and the expiry of
/// idempotency records.
public struct ServiceParts: Sendable {
    public var handlers: OperationHandlers
    public var jobs: [PeriodicJob]
    public var services: [any Service]

    public init(handlers: OperationHandlers, jobs: [PeriodicJob] = [], services: [any Service] = []) {
        self.handlers = handlers
        self.jobs = jobs
        self.services = services
    }
}

extension Setting {
    public static let idempotencyRetention = Setting(
        "idempotency.retention", default: "86400000",
        help: "Milliseconds a stored reply answers repeats of its request (the Idempotency-Key window); then it is deleted.", kind: .milliseconds(60_000...(30 * 86_400_000)))
}
