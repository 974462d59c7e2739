import AuthContract
import Contracts
import Foundation
import Metrics
import PostgresNIO
import PostgresSupport

/// `auth.security_events`: the account holder's own record of logins, failed logins, password
/// changes, blocks and refused refresh tokens. Every method runs on the caller's connection, inside the caller's transaction.
struct SecurityEventPostgresRepository: Sendable {
    let database: Database

    /// Records an event of `account` (an id, or the email of an account, or nothing when no
    /// account has that email), counted in `melon_auth_security_events_total`.
    func record(_ kind: Auth.SecurityEvent.Kind, account: UUID, ip: String?, session: UUID? = nil, detail: String? = nil,
                on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO security_events (account_id, kind, ip, session_id, detail)
            VALUES (\(account), \(kind.rawValue), \(ip), \(session), \(detail))
            """,
            logger: database.logger)
        Self.count(kind)
    }

    /// `record` for an account named by its email or id as the rate limits key it; nothing when no
    /// account has it.
    func record(_ kind: Auth.SecurityEvent.Kind, accountKey key: String, ip: String?, detail: String?, on connection: PostgresConnection) async throws {
        let rows = try await connection.query(
            """
            INSERT INTO security_events (account_id, kind, ip, detail)
            SELECT id, \(kind.rawValue), \(ip), \(detail) FROM accounts WHERE \(unescaped: AccountPostgresRepository.column(naming: key)) = \(key)
            RETURNING 1
            """,
            logger: database.logger)
        for try await _ in rows { Self.count(kind) }
    }

    /// Records a login of `account` as failed until `settle` says it succeeded, so that a wrong
    /// password costs the same with or without an account: nothing is written after the check.
    /// Counted in the metrics only once settled (`settle`, or `count` for a failure).
    func recordAttempt(account: UUID, ip: String?, on connection: PostgresConnection) async throws -> Int64 {
        // An INSERT ... RETURNING gives exactly one row.
        let rows = try await connection.query(
            "INSERT INTO security_events (account_id, kind, ip) VALUES (\(account), \(Auth.SecurityEvent.Kind.loginFailed.rawValue), \(ip)) RETURNING id",
            logger: database.logger
        ).collect()
        return try rows[0].decode(Int64.self)
    }

    /// The attempt `recordAttempt` recorded succeeded: a login of `session`.
    func settle(_ attempt: Int64, session: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            "UPDATE security_events SET kind = \(Auth.SecurityEvent.Kind.login.rawValue), session_id = \(session) WHERE id = \(attempt)",
            logger: database.logger)
        Self.count(.login)
    }

    static func count(_ kind: Auth.SecurityEvent.Kind) {
        Counter(label: "melon_auth_security_events_total", dimensions: [("kind", kind.rawValue)]).increment()
    }

    /// The account's events newest first, older than `before` (an event id) when given.
    func list(account: UUID, before: Int64?, limit: Int, on connection: PostgresConnection) async throws -> [Auth.SecurityEvent] {
        let rows = try await connection.query(
            """
            SELECT id, kind, at, ip, detail FROM security_events
            WHERE account_id = \(account) AND (\(before)::int8 IS NULL OR id < \(before))
            ORDER BY id DESC LIMIT \(limit)
            """,
            logger: database.logger)
        var events: [Auth.SecurityEvent] = []
        for try await (id, kind, at, ip, detail) in rows.decode((Int64, String, Date, String?, String?).self) {
            // Only this service writes the table, with these kinds.
            guard let kind = Auth.SecurityEvent.Kind(rawValue: kind) else { continue }
            events.append(.init(id: id, kind: kind, at: at, ip: ip, detail: detail))
        }
        return events
    }

    /// Drops events older than `retention`.
    func prune(olderThan retention: Duration, on connection: PostgresConnection) async throws -> Int {
        try await connection.query(
            "DELETE FROM security_events WHERE at < \(database.now()) - make_interval(secs => \(Double(retention.milliseconds) / 1000)) RETURNING 1",
            logger: database.logger
        ).collect().count
    }
}
