import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.reviews`: each side of a sale's review of the other, double-blind.
struct ReviewStore: Sendable {
    let database: Database

    /// A listing sold to a buyer through the marketplace.
    struct Deal: Sendable {
        let listing: UUID
        let title: String
        let university: String
        let seller: UUID
        let buyer: UUID
        let soldAt: Date
    }

    func deal(_ listing: UUID, on connection: PostgresConnection) async throws -> Deal? {
        let rows = try await connection.query(
            "SELECT title, university_id, seller, buyer, sold_at FROM listings WHERE id = \(listing) AND state = 'sold' AND buyer IS NOT NULL",
            logger: database.logger)
        for try await (title, university, seller, buyer, sold) in rows.decode((String, String, UUID, UUID, Date).self) {
            return Deal(listing: listing, title: title, university: university, seller: seller, buyer: buyer, soldAt: sold)
        }
        return nil
    }

    /// Adds `author`'s review of the deal; false when that side reviewed it already.
    func add(_ deal: Deal, by role: MarketplaceChat.DealRole, stars: Int, text: String, on connection: PostgresConnection) async throws -> Bool {
        let (author, subject) = role == .buyer ? (deal.buyer, deal.seller) : (deal.seller, deal.buyer)
        let rows = try await connection.query(
            """
            INSERT INTO reviews (listing_id, author_role, author, subject, university_id, listing_title, stars, text, created_at, shown_at)
            VALUES (\(deal.listing), \(role.rawValue), \(author), \(subject), \(deal.university), \(deal.title), \(Int16(stars)), \(text),
                    \(database.now()), \(deal.soldAt.adding(MarketplaceChat.Bounds.reviewWindow)))
            ON CONFLICT DO NOTHING RETURNING 1
            """,
            logger: database.logger)
        return try await rows.decode(Int.self).first { _ in true } != nil
    }

    /// The review by `role` of the deal, and whether it is shown.
    func review(of listing: UUID, by role: MarketplaceChat.DealRole, on connection: PostgresConnection) async throws -> (MarketplaceChat.Review, Bool)? {
        let now = database.now()
        let rows = try await connection.query(
            """
            SELECT r.listing_id, r.listing_title, r.author_role, r.author, t.username, r.stars, r.text, r.created_at, r.number,
                   (r.shown_at <= \(now) OR EXISTS (SELECT 1 FROM reviews o WHERE o.listing_id = r.listing_id AND o.author_role <> r.author_role))
            FROM reviews r LEFT JOIN traders t ON t.account_id = r.author
            WHERE r.listing_id = \(listing) AND r.author_role = \(role.rawValue)
            """,
            logger: database.logger)
        for try await row in rows.decode((UUID, String, String, UUID?, String?, Int16, String, Date, Int64, Bool).self) {
            return (Self.view(row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8), row.9)
        }
        return nil
    }

    /// The reviews of `subject` shown to others, the latest first, below `before`.
    func reviews(of subject: UUID, before: Int64?, limit: Int, on connection: PostgresConnection) async throws -> [MarketplaceChat.Review] {
        let now = database.now()
        let rows = try await connection.query(
            """
            SELECT r.listing_id, r.listing_title, r.author_role, r.author, t.username, r.stars, r.text, r.created_at, r.number
            FROM reviews r LEFT JOIN traders t ON t.account_id = r.author
            WHERE r.subject = \(subject) AND r.number < \(before ?? Int64.max)
              AND (r.shown_at <= \(now) OR EXISTS (SELECT 1 FROM reviews o WHERE o.listing_id = r.listing_id AND o.author_role <> r.author_role))
            ORDER BY r.number DESC LIMIT \(limit)
            """,
            logger: database.logger)
        return try await rows.decode((UUID, String, String, UUID?, String?, Int16, String, Date, Int64).self).reduce(into: []) { list, row in
            list.append(Self.view(row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8))
        }
    }

    /// `subject`'s rating from the reviews shown.
    func summary(of subject: UUID, on connection: PostgresConnection) async throws -> MarketplaceChat.RatingSummary {
        let now = database.now()
        let rows = try await connection.query(
            """
            SELECT r.stars, count(*)::int FROM reviews r
            WHERE r.subject = \(subject)
              AND (r.shown_at <= \(now) OR EXISTS (SELECT 1 FROM reviews o WHERE o.listing_id = r.listing_id AND o.author_role <> r.author_role))
            GROUP BY r.stars
            """,
            logger: database.logger)
        var stars = [0, 0, 0, 0, 0]
        for try await (value, count) in rows.decode((Int16, Int).self) where (1...5).contains(value) { stars[Int(value) - 1] = count }
        let count = stars.reduce(0, +)
        let total = stars.enumerated().reduce(0) { $0 + ($1.offset + 1) * $1.element }
        // Tenths, rounded half up, in integers: 4.25 is 4.3.
        let average = count == 0 ? nil : Double((total * 20 + count) / (2 * count)) / 10
        return .init(count: count, average: average, stars: stars)
    }

    /// `account`'s reviews stay, counted in their subjects' ratings, without its name or its words (its
    /// text, and the title of a listing it sold); the reviews of it go. One the other side had answered
    /// stays shown: the double-blind rule waited for that answer, which goes now. Its purchases name
    /// no buyer, so no one reviews the account again.
    func erase(_ account: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            UPDATE reviews r SET author = NULL, text = '', listing_title = CASE WHEN r.author_role = 'seller' THEN '' ELSE r.listing_title END,
                shown_at = CASE WHEN EXISTS (SELECT 1 FROM reviews o WHERE o.listing_id = r.listing_id AND o.author_role <> r.author_role)
                    THEN LEAST(r.shown_at, \(database.now())) ELSE r.shown_at END
            WHERE r.author = \(account)
            """,
            logger: database.logger)
        try await connection.query("DELETE FROM reviews WHERE subject = \(account)", logger: database.logger)
        try await connection.query("UPDATE listings SET buyer = NULL WHERE buyer = \(account)", logger: database.logger)
    }

    private static func view(_ listing: UUID, _ title: String, _ role: String, _ author: UUID?, _ username: String?, _ stars: Int16, _ text: String,
                             _ created: Date, _ number: Int64) -> MarketplaceChat.Review {
        let participant = author.map { MarketplaceChat.Participant(id: ListingStore.text($0), username: username ?? "member") } ?? .deleted
        return .init(
            listingId: ListingStore.text(listing), listingTitle: title, role: MarketplaceChat.DealRole(rawValue: role) ?? .buyer, author: participant,
            stars: Int(stars), text: text, createdAt: created, number: number)
    }
}
