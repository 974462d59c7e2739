import AuthContract
import Contracts
import Foundation
import PostgresNIO
import PostgresSupport

/// Current policies and the account's signatures, in the auth schema. Every method runs on the
/// caller's connection, inside the caller's transaction.
struct AgreementPostgresRepository: Sendable {
    let database: Database

    /// Each policy that applies to `app`, in its current version, with the account's standing, by
    /// policy id (or only `policy`).
    func list(account: UUID, app: ClientApp, policy: String? = nil, on connection: PostgresConnection) async throws -> [Auth.Agreement] {
        let rows = try await connection.query(
            """
            WITH current AS (
                SELECT DISTINCT ON (id) id, version, title, url, required, apps FROM policies
                WHERE effective_at <= \(database.now()) AND (\(policy)::text IS NULL OR id = \(policy))
                ORDER BY id, version DESC)
            SELECT c.id, c.version, c.title, c.url, c.required, a.version, a.signed_at, a.withdrawn_at
            FROM current c LEFT JOIN LATERAL (
                SELECT version, signed_at, withdrawn_at FROM agreements
                WHERE account_id = \(account) AND policy_id = c.id ORDER BY version DESC LIMIT 1) a ON true
            WHERE c.apps IS NULL OR \(app.rawValue) = ANY (c.apps)
            ORDER BY c.id
            """,
            logger: database.logger)
        var agreements: [Auth.Agreement] = []
        for try await (id, version, title, url, required, signedVersion, signedAt, withdrawnAt)
            in rows.decode((String, Int, String, String, Bool, Int?, Date?, Date?).self)
        {
            let status: Auth.Agreement.Status = switch (signedVersion, withdrawnAt) {
            case (nil, _): .unsigned
            case (_, .some): .withdrawn
            case (let signed?, nil): signed < version ? .outdated : .signed
            }
            agreements.append(.init(
                policy: id, version: version, title: title, url: url, required: required, status: status,
                signedVersion: signedVersion, signedAt: signedAt, withdrawnAt: withdrawnAt))
        }
        return agreements
    }

    /// Records the account's signature of `policy` in `version` (again, if it had withdrawn it).
    func sign(account: UUID, policy: String, version: Int, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO agreements (account_id, policy_id, version, signed_at) VALUES (\(account), \(policy), \(version), \(database.now()))
            ON CONFLICT (account_id, policy_id, version) DO UPDATE SET signed_at = \(database.now()), withdrawn_at = NULL
            """,
            logger: database.logger)
    }

    /// Marks the account's signatures of `policy` withdrawn.
    func withdraw(account: UUID, policy: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            "UPDATE agreements SET withdrawn_at = \(database.now()) WHERE account_id = \(account) AND policy_id = \(policy) AND withdrawn_at IS NULL",
            logger: database.logger)
    }
}
