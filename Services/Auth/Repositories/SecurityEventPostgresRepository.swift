import AuthContract
import Contracts
import Foundation
import PostgresNIO
import PostgresSupport

/// `auth.security_events`: the account holder's own record of logins, failed logins and password
/// changes. Every method runs on the caller's connection, inside the caller's transaction.
struct SecurityEventPostgresRepository: Sendable {
    let database: Database

    func record(_ kind: Auth.SecurityEvent.Kind, account: UUID, ip: String?, session: UUID? = nil, on connection: PostgresConnection) async throws {
        try await connection.query(
            "INSERT INTO security_events (account_id, kind, ip, session_id) VALUES (\(account), \(kind.rawValue), \(ip), \(session))",
            logger: database.logger)
    }

    /// The account's events newest first, older than `before` (an event id) when given.
    func list(account: UUID, before: Int64?, limit: Int, on connection: PostgresConnection) async throws -> [Auth.SecurityEvent] {
        let rows = try await connection.query(
            """
            SELECT id, kind, at, ip FROM security_events
            WHERE account_id = \(account) AND (\(before)::int8 IS NULL OR id < \(before))
            ORDER BY id DESC LIMIT \(limit)
            """,
            logger: database.logger)
        var events: [Auth.SecurityEvent] = []
        for try await (id, kind, at, ip) in rows.decode((Int64, String, Date, String?).self) {
            // Only this service writes the table, with these kinds.
            guard let kind = Auth.SecurityEvent.Kind(rawValue: kind) else { continue }
            events.append(.init(id: id, kind: kind, at: at, ip: ip))
        }
        return events
    }

    /// Drops events older than `retention`.
    func prune(olderThan retention: Duration, on connection: PostgresConnection) async throws -> Int {
        try await connection.query(
            "DELETE FROM security_events WHERE at < now() - make_interval(secs => \(Double(retention.milliseconds) / 1000)) RETURNING 1",
            logger: database.logger
        ).collect().count
    }
}
