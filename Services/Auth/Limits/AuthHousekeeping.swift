import PostgresSupport

/// Every ten minutes: registration attempts that expired (with the credentials and addresses in
/// them), ended sessions whose access tokens have all expired, and security events and known
/// networks past their retention, go; and pictures kept before the media store are re-encoded onto
/// it. (Attempt counters are the kit's back-offs, which the kit expires.)
struct AuthHousekeeping: Sendable {
    let limits: AttemptLimits
    let events: SecurityEventPostgresRepository
    let registrations: RegistrationPostgresRepository
    let sessions: SessionPostgresRepository
    let pictures: PicturePostgresRepository
    let retention: Duration

    func jobs(database: Database) -> [PeriodicJob] {
        [
            PeriodicJob("registrations.sweep", every: .seconds(600), database: database) { try await registrations.sweep(on: $0) },
            PeriodicJob("revoked-sessions.prune", every: .seconds(600), database: database) { try await sessions.forgetExpiredRevocations(on: $0) },
            PeriodicJob("security-events.prune", every: .seconds(600), database: database) { try await events.prune(olderThan: retention, on: $0) },
            PeriodicJob("known-networks.prune", every: .seconds(600), database: database) { try await limits.forgetNetworks(olderThan: retention, on: $0) },
            PeriodicJob("pictures.legacy-move", every: .seconds(600), database: database) { try await pictures.moveLegacy(on: $0) },
        ]
    }
}
