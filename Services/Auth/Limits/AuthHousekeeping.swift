import Logging
import PostgresSupport
import ServiceLifecycle

/// Every few minutes: drops attempt counters that have run out and security events past their
/// retention. Runs in every instance; the deletes are idempotent.
struct AuthHousekeeping: Service {
    let database: Database
    let limits: AttemptLimits
    let events: SecurityEventPostgresRepository
    let retention: Duration
    var interval: Duration = .seconds(600)

    func run() async throws {
        await LeasedQueue.poll(every: interval, logger: database.logger) {
            try await sweep()
            return 0
        }
    }

    /// One round.
    func sweep() async throws {
        try await limits.sweep()
        try await database.transaction { try await events.prune(olderThan: retention, on: $0) }
    }
}
