import PostgresSupport
import ServiceLifecycle

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
