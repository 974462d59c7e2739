import Foundation
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// `payments.people`: the members of the fundraising app (from their first request in it) and the
/// username each goes by (the token's, kept whenever it acts), and what others see of what it did.
struct PeopleStore: Sendable {
    let database: Database

    func record(_ account: UUID, username: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO people (account_id, username, updated_at) VALUES (\(account), \(username), \(database.now()))
            ON CONFLICT (account_id) DO UPDATE SET username = EXCLUDED.username, updated_at = EXCLUDED.updated_at
            WHERE people.username <> EXCLUDED.username
            """,
            logger: database.logger)
    }

    /// Records `account` as a member of the fundraising app under `username` unless it is one: a
    /// read's way, which leaves the row as it is (no lock, no write when it is there).
    func join(_ account: UUID, username: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            "INSERT INTO people (account_id, username, updated_at) VALUES (\(account), \(username), \(database.now())) ON CONFLICT (account_id) DO NOTHING",
            logger: database.logger)
    }

    /// The username `account` goes by here; nil when it never used the fundraising app (or was erased).
    func username(of account: UUID, on connection: PostgresConnection) async throws -> String? {
        try await connection.query("SELECT username FROM people WHERE account_id = \(account)", logger: database.logger)
            .decode(String.self).first { _ in true }
    }

    /// `account`'s latest `limit` campaigns started and donations made (not the anonymous ones), the latest first.
    func activity(of account: UUID, limit: Int, on connection: PostgresConnection) async throws -> [Payments.Activity] {
        let rows = try await connection.query(
            """
            (SELECT 'campaign_started', c.id, c.title, NULL::bigint, c.created_at FROM campaigns c WHERE c.owner_id = \(account)
             ORDER BY c.created_at DESC LIMIT \(limit))
            UNION ALL
            (SELECT 'donated', d.campaign_id, c.title, d.gross_minor, d.succeeded_at FROM donations d JOIN campaigns c ON c.id = d.campaign_id
             WHERE d.donor_id = \(account) AND d.status = 'succeeded' AND NOT d.anonymous ORDER BY d.succeeded_at DESC LIMIT \(limit))
            ORDER BY 5 DESC LIMIT \(limit)
            """,
            logger: database.logger)
        var activity: [Payments.Activity] = []
        for try await (kind, campaign, title, amount, at) in rows.decode((String, UUID, String?, Int64?, Date).self) {
            activity.append(.init(
                kind: Payments.ActivityKind(rawValue: kind) ?? .donated, campaignId: CampaignStore.text(campaign), campaignTitle: title,
                amount: amount.map(CampaignStore.euros), at: at))
        }
        return activity
    }
}
