import PostgresNIO

extension Database {
    /// Holds the lock named `name` until the caller's transaction ends: transactions that take the
    /// same name run one after the other (an account's limit counted, a username claimed). Locks are
    /// per PostgreSQL database, so a name says whose it is (`household-account/<id>`); `seed` keeps
    /// a family of names apart from the others' hashes.
    public func lockForTransaction(_ name: String, seed: Int64 = 0, on connection: PostgresConnection) async throws {
        _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(name), \(seed)))", logger: logger)
    }
}
