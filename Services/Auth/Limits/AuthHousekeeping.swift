import PostgresSupport

/// Every ten minutes: attempt counters that have run out, and security events past their retention, go.
struct AuthHousekeeping: Sendable {
    let limits: AttemptLimits
    let events: SecurityEventPostgresRepository
    let retention: Duration

    func jobs(database: Database) -> [PeriodicJob] {
        [
            PeriodicJob("attempts.sweep", every: .seconds(600), database: database) { try await limits.sweep(on: $0) },
            PeriodicJob("security-events.prune", every: .seconds(600), database: database) { try await events.prune(olderThan: retention, on: $0) },
        ]
    }
}
