import Bus
import Envelope
import Foundation
import HouseholdContract
import PostgresNIO
import PostgresSupport

/// `household.invites`: codes that let whoever has one join a household until it expires or is revoked.
struct InviteStore: Sendable {
    let database: Database

    /// A new random code of `Household.Bounds.inviteAlphabet` (31^8, about 2^39.6, codes).
    static func newCode() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<Household.Bounds.inviteCodeLength).map { _ in Household.Bounds.inviteAlphabet.randomElement(using: &generator)! })
    }

    /// The code as people type it: capitals, without spaces or dashes.
    static func normalized(_ code: String) -> String {
        String(code.uppercased().unicodeScalars.filter { $0 != " " && $0 != "-" }.map(Character.init))
    }

    /// A new code for `household`, valid for `lifetime`.
    func create(for household: UUID, by member: UUID, lifetime: Duration, on connection: PostgresConnection) async throws -> Household.Invite {
        let now = database.now(), expires = now.adding(lifetime)
        // A clash with a code in use (about one in 10^11 per code) is tried again with another.
        for _ in 0..<3 {
            let code = Self.newCode()
            let inserted = try await connection.query(
                """
                INSERT INTO invites (code, household_id, created_by, created_at, expires_at) VALUES (\(code), \(household), \(member), \(now), \(expires))
                ON CONFLICT (code) DO NOTHING RETURNING 1
                """,
                logger: database.logger
            ).collect().count
            if inserted == 1 { return Household.Invite(code: code, householdId: HouseholdStore.text(household), createdAt: now, expiresAt: expires) }
        }
        throw OperationError(.internal, "no free invite code was found")
    }

    /// The household's codes still valid, newest first.
    func valid(of household: UUID, on connection: PostgresConnection) async throws -> [Household.Invite] {
        let rows = try await connection.query(
            """
            SELECT code, created_at, expires_at FROM invites
            WHERE household_id = \(household) AND revoked_at IS NULL AND expires_at > \(database.now())
            ORDER BY created_at DESC, code
            """,
            logger: database.logger)
        var invites: [Household.Invite] = []
        for try await (code, created, expires) in rows.decode((String, Date, Date).self) {
            invites.append(Household.Invite(code: code, householdId: HouseholdStore.text(household), createdAt: created, expiresAt: expires))
        }
        return invites
    }

    /// Ends a valid code of `household`; false when there is none.
    func revoke(_ code: String, of household: UUID, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query(
            """
            UPDATE invites SET revoked_at = \(database.now())
            WHERE code = \(code) AND household_id = \(household) AND revoked_at IS NULL AND expires_at > \(database.now())
            RETURNING 1
            """,
            logger: database.logger
        ).collect().count == 1
    }

    /// The household a valid `code` lets one join, and when the code was made.
    func household(of code: String, on connection: PostgresConnection) async throws -> (household: UUID, createdAt: Date)? {
        let rows = try await connection.query(
            "SELECT household_id, created_at FROM invites WHERE code = \(code) AND revoked_at IS NULL AND expires_at > \(database.now())",
            logger: database.logger)
        for try await (household, created) in rows.decode((UUID, Date).self) { return (household, created) }
        return nil
    }

    /// Drops codes that expired or were revoked a day ago or more; returns how many.
    func prune(on connection: PostgresConnection) async throws -> Int {
        let dayAgo = database.ago(.seconds(86_400))
        return try await connection.query(
            "DELETE FROM invites WHERE expires_at < \(dayAgo) OR revoked_at < \(dayAgo) RETURNING 1", logger: database.logger
        ).collect().count
    }
}
