import Envelope
import Foundation
import MarketplaceChatContract
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.follows` and `saved_searches`, and the pushes a listing's first publication
/// sends their owners through the outbox.
struct FollowStore: Sendable {
    let database: Database

    /// The most searches one trader keeps.
    static let savedSearchesPerTrader = 20

    func follow(_ followee: UUID, by follower: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            "INSERT INTO follows (follower, followee, created_at) VALUES (\(follower), \(followee), \(database.now())) ON CONFLICT DO NOTHING",
            logger: database.logger)
    }

    func unfollow(_ followee: UUID, by follower: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM follows WHERE follower = \(follower) AND followee = \(followee)", logger: database.logger)
    }

    /// The traders `follower` follows in `university`, none blocked either way.
    func followed(by follower: UUID, in university: String, traders: TraderStore, on connection: PostgresConnection) async throws -> [MarketplaceChat.Trader] {
        let rows = try await connection.query(
            """
            SELECT t.account_id FROM follows f JOIN traders t ON t.account_id = f.followee
            WHERE f.follower = \(follower) AND t.university_id = \(university)
              AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = \(follower) AND b.blocked = t.account_id)
                                                         OR (b.blocker = t.account_id AND b.blocked = \(follower)))
            ORDER BY t.username LIMIT 1000
            """,
            logger: database.logger)
        return try await traders.traders(try await rows.decode(UUID.self).reduce(into: []) { $0.append($1) }, on: connection)
    }

    func save(_ search: MarketplaceChat.SavedSearches.Create.Request, q: String?, by account: UUID, in university: String,
              on connection: PostgresConnection) async throws -> MarketplaceChat.SavedSearch {
        let kept = try await connection.query("SELECT count(*) FROM saved_searches WHERE account_id = \(account)", logger: database.logger)
        if try await (kept.decode(Int.self).first { _ in true } ?? 0) >= Self.savedSearchesPerTrader {
            throw OperationError(.conflict, "you keep \(Self.savedSearchesPerTrader) searches already; delete one first")
        }
        let id = UUID(), now = database.now()
        try await connection.query(
            """
            INSERT INTO saved_searches (id, account_id, university_id, q, category_id, campus_id, condition, min_price, max_price, free, created_at)
            VALUES (\(id), \(account), \(university), \(q), \(search.category), \(search.campus), \(search.condition?.rawValue), \(search.minPrice),
                    \(search.maxPrice), \(search.free ?? false), \(now))
            """,
            logger: database.logger)
        return .init(
            id: ListingStore.text(id), q: q, category: search.category, campus: search.campus, condition: search.condition, minPrice: search.minPrice,
            maxPrice: search.maxPrice, free: search.free == true ? true : nil, createdAt: now)
    }

    func searches(of account: UUID, on connection: PostgresConnection) async throws -> [MarketplaceChat.SavedSearch] {
        let rows = try await connection.query(
            """
            SELECT id, q, category_id, campus_id, condition, min_price, max_price, free, created_at FROM saved_searches
            WHERE account_id = \(account) ORDER BY created_at DESC, id
            """,
            logger: database.logger)
        return try await rows.decode((UUID, String?, String?, String?, String?, Int64?, Int64?, Bool, Date).self).reduce(into: []) { list, row in
            list.append(.init(
                id: ListingStore.text(row.0), q: row.1, category: row.2, campus: row.3, condition: row.4.flatMap(MarketplaceChat.Condition.init(rawValue:)),
                minPrice: row.5, maxPrice: row.6, free: row.7 ? true : nil, createdAt: row.8))
        }
    }

    /// Deletes the account's saved search `id`; whether there was one.
    func deleteSearch(_ id: UUID, of account: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            "WITH gone AS (DELETE FROM saved_searches WHERE id = \(id) AND account_id = \(account) RETURNING 1) SELECT count(*) FROM gone",
            logger: database.logger)
        return try await (rows.decode(Int.self).first { _ in true } ?? 0) > 0
    }

    /// Pushes a just published listing to the seller's followers and to the owners of the saved
    /// searches of its network that find it: once to each, none to anyone blocked either way or to
    /// the seller. How many were told.
    @discardableResult
    func announce(_ listing: ListingStore.Row, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            """
            WITH l AS (SELECT * FROM listings WHERE id = \(listing.id)),
            reached AS (
                SELECT f.follower AS account, true AS follows FROM follows f WHERE f.followee = \(listing.seller)
                UNION ALL
                SELECT s.account_id, false FROM saved_searches s, l
                WHERE s.university_id = l.university_id
                  AND (s.category_id IS NULL OR s.category_id = l.category_id) AND (s.campus_id IS NULL OR s.campus_id = l.campus_id)
                  AND (s.condition IS NULL OR s.condition = l.condition)
                  AND (s.min_price IS NULL OR l.price_minor >= s.min_price) AND (s.max_price IS NULL OR l.price_minor <= s.max_price)
                  AND (NOT s.free OR l.price_minor = 0)
                  AND (s.q IS NULL OR l.search_doc @@ websearch_to_tsquery('english'::regconfig, s.q) OR s.q OPERATOR(extensions.<%) l.title))
            SELECT account, bool_or(follows) FROM reached
            WHERE account <> \(listing.seller)
              AND EXISTS (SELECT 1 FROM traders t, l WHERE t.account_id = account AND t.university_id = l.university_id)
              AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = account AND b.blocked = \(listing.seller))
                                                         OR (b.blocker = \(listing.seller) AND b.blocked = account))
            GROUP BY account ORDER BY account
            """,
            logger: database.logger)
        var followers: [String] = [], searchers: [String] = []
        for try await (account, follows) in rows.decode((UUID, Bool).self) {
            if follows { followers.append(ListingStore.text(account)) } else { searchers.append(ListingStore.text(account)) }
        }
        let view = listing.view
        for (recipients, event, title) in [
            (followers, Notifications.EventType.followedUserPosted, "New from \(view.sellerUsername)"),
            (searchers, Notifications.EventType.wishlistMatch, "New for a search you saved"),
        ] where !recipients.isEmpty {
            let content = Notifications.Content(
                app: event.app, eventType: event.name, category: event.category, alert: .init(title: title, body: view.title),
                data: ["listingId": view.id], threadID: "listing-\(view.id)")
            try await database.enqueue(Notifications.Push.Send.self, .init(recipients: recipients, content: content), on: connection)
        }
        return followers.count + searchers.count
    }

    /// Forgets what `account` followed and searched for, and who followed it (its erasure).
    func forget(_ account: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM follows WHERE follower = \(account) OR followee = \(account)", logger: database.logger)
        try await connection.query("DELETE FROM saved_searches WHERE account_id = \(account)", logger: database.logger)
    }
}
