import Foundation
import PostgresNIO
import PostgresSupport

/// Registration attempts in the auth schema (`registrations`): the credentials of one request to
/// register, until the code mailed for it makes the account. Every method runs on the caller's
/// connection, inside the caller's transaction.
struct RegistrationPostgresRepository: Sendable {
    let database: Database

    struct Attempt: Sendable, CodeRecipient {
        let id: UUID
        let email: String
        let username: String
        let displayName: String
        let firstName: String?
        let lastName: String?
        let passwordHash: String
        let universityID: String?
        /// Seconds since the newest code of the attempt was made, nil when none was.
        let lastCodeAge: Double?
    }

    /// Serialises the requests that may claim `username` until the caller's transaction ends.
    func lockUsername(_ username: String, on connection: PostgresConnection) async throws {
        try await database.lockForTransaction("auth.username/" + username, on: connection)
    }

    /// Whether an account other than `account` has `username`, or a live attempt for an address
    /// other than `email` holds it. Call under `lockUsername`.
    func isUsernameHeld(_ username: String, exceptAccount account: UUID? = nil, exceptEmail email: String? = nil,
                        on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            SELECT 1 FROM accounts WHERE username = \(username) AND id IS DISTINCT FROM \(account)
            UNION ALL
            SELECT 1 FROM registrations WHERE username = \(username) AND email IS DISTINCT FROM \(email) AND expires_at > \(database.now())
            LIMIT 1
            """,
            logger: database.logger)
        for try await _ in rows { return true }
        return false
    }

    func insert(_ attempt: Attempt, lifetime: Duration, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO registrations (id, email, username, display_name, first_name, last_name, password_hash, university_id, created_at, expires_at)
            VALUES (\(attempt.id), \(attempt.email), \(attempt.username), \(attempt.displayName), \(attempt.firstName), \(attempt.lastName),
                    \(attempt.passwordHash), \(attempt.universityID), \(database.now()), \(database.now()) + make_interval(secs => \(Double(lifetime.milliseconds) / 1000)))
            """,
            logger: database.logger)
    }

    /// The attempt `id` for `email` while it lasts, locked.
    func live(_ id: UUID, email: String, on connection: PostgresConnection) async throws -> Attempt? {
        let rows = try await connection.query(
            """
            SELECT r.id, r.email, r.username, r.display_name, r.first_name, r.last_name, r.password_hash, r.university_id,
                (SELECT extract(epoch FROM \(database.now()) - max(c.created_at))::float8 FROM email_codes c WHERE c.registration_id = r.id)
            FROM registrations r WHERE r.id = \(id) AND r.email = \(email) AND r.expires_at > \(database.now()) FOR UPDATE OF r
            """,
            logger: database.logger)
        for try await (id, email, username, name, first, last, hash, university, age)
            in rows.decode((UUID, String, String, String, String?, String?, String, String?, Double?).self)
        {
            return Attempt(
                id: id, email: email, username: username, displayName: name, firstName: first, lastName: last, passwordHash: hash,
                universityID: university, lastCodeAge: age)
        }
        return nil
    }

    /// The password hash of the newest live attempt for `email`.
    func newestPasswordHash(email: String, on connection: PostgresConnection) async throws -> String? {
        let rows = try await connection.query(
            "SELECT password_hash FROM registrations WHERE email = \(email) AND expires_at > \(database.now()) ORDER BY created_at DESC LIMIT 1",
            logger: database.logger)
        for try await hash in rows.decode(String.self) { return hash }
        return nil
    }

    /// Drops every attempt for `email` (the account exists, or is erased), with their codes.
    func deleteAll(email: String, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM registrations WHERE email = \(email)", logger: database.logger)
    }

    /// Drops attempts that have expired, with their codes.
    func sweep(on connection: PostgresConnection) async throws -> Int {
        try await connection.query("DELETE FROM registrations WHERE expires_at <= \(database.now()) RETURNING 1", logger: database.logger).collect().count
    }
}
