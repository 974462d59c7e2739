import Foundation
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// `payments.bookmarks`: the campaigns each account keeps an eye on.
struct BookmarkStore: Sendable {
    let database: Database
    let campaigns: CampaignStore

    /// The most bookmarks one account keeps.
    static let most = 500

    /// Bookmarks `campaign` for `account`; false when it has `most` already.
    func set(_ campaign: UUID, for account: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            INSERT INTO bookmarks (account_id, campaign_id, created_at)
            SELECT \(account), \(campaign), \(database.now())
            WHERE (SELECT count(*) FROM bookmarks WHERE account_id = \(account)) < \(Self.most)
               OR EXISTS (SELECT 1 FROM bookmarks WHERE account_id = \(account) AND campaign_id = \(campaign))
            ON CONFLICT DO NOTHING RETURNING 1
            """,
            logger: database.logger)
        if try await rows.decode(Int.self).first(where: { _ in true }) != nil { return true }
        let kept = try await connection.query(
            "SELECT 1 FROM bookmarks WHERE account_id = \(account) AND campaign_id = \(campaign)", logger: database.logger)
        return try await kept.decode(Int.self).first { _ in true } != nil
    }

    /// Removes `account`'s bookmark of `campaign`; whether there was one.
    func remove(_ campaign: UUID, for account: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            "DELETE FROM bookmarks WHERE account_id = \(account) AND campaign_id = \(campaign) RETURNING 1", logger: database.logger)
        return try await rows.decode(Int.self).first { _ in true } != nil
    }

    /// `account`'s bookmarked campaigns, the latest bookmark first, below bookmark `before`; with the
    /// bookmark numbers.
    func list(of account: UUID, before: Int64?, limit: Int, on connection: PostgresConnection) async throws -> [(seq: Int64, campaign: Payments.Campaign)] {
        var query = CampaignStore.select(viewer: account, key: "b.seq", from: "bookmarks b JOIN campaigns c ON c.id = b.campaign_id")
        let (owner, below, most) = (query.binds.placeholder(account), query.binds.placeholder(before), query.binds.placeholder(limit))
        query.sql += " WHERE b.account_id = \(owner) AND (\(below)::bigint IS NULL OR b.seq < \(below)) ORDER BY b.seq DESC LIMIT \(most)"
        return try await campaigns.rows(query, on: connection).map { (seq: $0.key, campaign: $0.view) }
    }
}
