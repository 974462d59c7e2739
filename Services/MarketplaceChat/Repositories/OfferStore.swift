import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.offers` and listings' reservations: bargaining over a listing.
struct OfferStore: Sendable {
    let database: Database

    /// How long an open or countered offer waits for its answer, and a reservation for its sale.
    static let answerWithin = Duration.seconds(48 * 3_600)
    static let reservedFor = Duration.seconds(72 * 3_600)

    struct Row: Sendable {
        let id: UUID
        let listing: UUID
        let buyer: UUID
        let seller: UUID
        let title: String
        let state: MarketplaceChat.OfferState
        let counter: Int64?
        /// Whether its listing is reserved now (for this offer, when it is accepted).
        let reserved: Bool
        let view: @Sendable (UUID) -> MarketplaceChat.Offer
    }

    private static let columns = """
        o.id, o.listing_id, o.buyer, l.seller, l.title, t.username, o.amount_minor, o.counter_minor, o.currency, o.state, o.created_at, o.expires_at,
        l.state = 'reserved'
        FROM offers o JOIN listings l ON l.id = o.listing_id LEFT JOIN traders t ON t.account_id = o.buyer
        """

    private func rows(_ condition: PostgresQuery, suffix: String = "", on connection: PostgresConnection) async throws -> [Row] {
        var query = PostgresQuery.select(Self.columns, where: condition)
        query.sql += suffix
        let now = database.now()
        let rows = try await connection.query(query, logger: database.logger)
        var result: [Row] = []
        for try await row in rows.decode((UUID, UUID, UUID, UUID, String, String?, Int64, Int64?, String, String, Date, Date, Bool).self) {
            let (id, listing, buyer, seller, title, username, amount, counter, code, stateText, created, expires, reserved) = row
            let currency = Currency(rawValue: code) ?? .eur
            var state = MarketplaceChat.OfferState(rawValue: stateText) ?? .expired
            // What ran out is expired at once, whether or not the job has come by; an accepted offer
            // runs out with its reservation, not once the listing sold.
            let running = state == .open || state == .countered || (state == .accepted && reserved)
            if running, expires <= now { state = .expired }
            let buyerView = MarketplaceChat.Participant(id: ListingStore.text(buyer), username: username ?? "member")
            let final = state
            result.append(Row(
                id: id, listing: listing, buyer: buyer, seller: seller, title: title, state: state, counter: counter, reserved: reserved,
                view: { caller in
                    .init(
                        id: ListingStore.text(id), listingId: ListingStore.text(listing), buyer: buyerView, amount: Money(minorUnits: amount, currency: currency),
                        counter: counter.map { Money(minorUnits: $0, currency: currency) }, state: final, mine: caller == buyer, createdAt: created,
                        expiresAt: running && final != .expired ? expires : nil)
                }))
        }
        return result
    }

    func offer(_ id: UUID, locking: Bool = false, on connection: PostgresConnection) async throws -> Row? {
        try await rows("o.id = \(id)", suffix: locking ? " FOR UPDATE OF o, l" : "", on: connection).first
    }

    /// The offers on `listing`, the latest first: all of them, or `buyer`'s.
    func offers(on listing: UUID, by buyer: UUID?, on connection: PostgresConnection) async throws -> [Row] {
        try await rows("o.listing_id = \(listing) AND (\(buyer)::uuid IS NULL OR o.buyer = \(buyer))", suffix: " ORDER BY o.number DESC LIMIT 200", on: connection)
    }

    /// A new open offer; nil when the buyer has one open or countered on the listing.
    func create(on listing: UUID, by buyer: UUID, amount: Int64, currency: Currency, on connection: PostgresConnection) async throws -> UUID? {
        let now = database.now(), id = UUID()
        try await connection.query(
            """
            UPDATE offers SET state = 'expired'
            WHERE listing_id = \(listing) AND buyer = \(buyer) AND state IN ('open', 'countered') AND expires_at <= \(now)
            """,
            logger: database.logger)
        let rows = try await connection.query(
            """
            INSERT INTO offers (id, listing_id, buyer, amount_minor, currency, state, created_at, expires_at)
            VALUES (\(id), \(listing), \(buyer), \(amount), \(currency.rawValue), 'open', \(now), \(now.adding(Self.answerWithin)))
            ON CONFLICT DO NOTHING RETURNING 1
            """,
            logger: database.logger)
        return try await rows.decode(Int.self).first { _ in true } != nil ? id : nil
    }

    func counter(_ id: UUID, amount: Int64, on connection: PostgresConnection) async throws {
        try await connection.query(
            "UPDATE offers SET state = 'countered', counter_minor = \(amount), expires_at = \(database.now().adding(Self.answerWithin)) WHERE id = \(id)",
            logger: database.logger)
    }

    /// Accepts the offer and reserves its listing for its buyer.
    func accept(_ offer: Row, on connection: PostgresConnection) async throws {
        let until = database.now().adding(Self.reservedFor)
        try await connection.query("UPDATE offers SET state = 'accepted', expires_at = \(until) WHERE id = \(offer.id)", logger: database.logger)
        try await connection.query(
            """
            UPDATE listings SET state = 'reserved', reserved_for = \(offer.buyer), reserved_until = \(until), version = version + 1,
                updated_at = \(database.now())
            WHERE id = \(offer.listing)
            """,
            logger: database.logger)
    }

    /// Declines the offer; an accepted one's reservation ends, the listing back in the feed.
    func decline(_ offer: Row, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE offers SET state = 'declined' WHERE id = \(offer.id)", logger: database.logger)
        if offer.state == .accepted { try await release(offer.listing, on: connection) }
    }

    private func release(_ listing: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            UPDATE listings SET state = 'active', reserved_for = NULL, reserved_until = NULL, version = version + 1, updated_at = \(database.now())
            WHERE id = \(listing) AND state = 'reserved'
            """,
            logger: database.logger)
    }

    /// The buyer a listing is reserved for, if any.
    func reservedBuyer(of listing: UUID, on connection: PostgresConnection) async throws -> UUID? {
        let rows = try await connection.query("SELECT reserved_for FROM listings WHERE id = \(listing) AND state = 'reserved'", logger: database.logger)
        return try await rows.decode(UUID?.self).first { _ in true } ?? nil
    }

    /// On a sale: every offer still in play is declined but the buyer's accepted one; the declined
    /// offers and their buyers.
    func settle(_ listing: UUID, soldTo buyer: UUID?, on connection: PostgresConnection) async throws -> [(offer: UUID, buyer: UUID)] {
        let rows = try await connection.query(
            """
            UPDATE offers SET state = 'declined'
            WHERE listing_id = \(listing) AND state IN ('open', 'countered', 'accepted') AND (state <> 'accepted' OR buyer IS DISTINCT FROM \(buyer))
            RETURNING id, buyer
            """,
            logger: database.logger)
        let declined = try await rows.decode((UUID, UUID).self).reduce(into: []) { $0.append((offer: $1.0, buyer: $1.1)) }
        try await connection.query("UPDATE listings SET reserved_for = NULL, reserved_until = NULL WHERE id = \(listing)", logger: database.logger)
        return declined
    }

    /// Pushes the news of offer `offer` on `listing` (titled `title`) to `account`, through
    /// notifications' outbox.
    func tell(_ account: UUID, _ news: String, offer: UUID, listing: UUID, title: String, on connection: PostgresConnection) async throws {
        let event = Notifications.EventType.offerUpdate
        let content = Notifications.Content(
            app: event.app, eventType: event.name, category: event.category, alert: .init(title: news, body: title),
            data: ["listingId": ListingStore.text(listing), "offerId": ListingStore.text(offer)], threadID: "listing-\(ListingStore.text(listing))")
        try await database.enqueue(Notifications.Push.Send.self, .init(recipients: [ListingStore.text(account)], content: content), on: connection)
    }

    /// Lapses what ran out: open and countered offers past 48 hours; reservations past 72 hours
    /// without a sale (the listing back in the feed). Returns how many.
    func expire(on connection: PostgresConnection) async throws -> Int {
        let now = database.now()
        let rows = try await connection.query(
            """
            WITH lapsed AS (
                UPDATE offers o SET state = 'expired'
                WHERE o.state IN ('open', 'countered', 'accepted') AND o.expires_at <= \(now)
                  AND (o.state <> 'accepted' OR EXISTS (SELECT 1 FROM listings l WHERE l.id = o.listing_id AND l.state = 'reserved'))
                RETURNING o.listing_id
            ), released AS (
                UPDATE listings l SET state = 'active', reserved_for = NULL, reserved_until = NULL, version = version + 1, updated_at = \(now)
                WHERE l.state = 'reserved' AND l.reserved_until <= \(now)
                RETURNING 1
            )
            SELECT (SELECT count(*)::int FROM lapsed) + (SELECT count(*)::int FROM released)
            """,
            logger: database.logger)
        return try await rows.decode(Int.self).first { _ in true } ?? 0
    }

    /// Forgets `account`'s offers; a listing reserved for it goes back to the feed.
    func erase(_ account: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM offers WHERE buyer = \(account)", logger: database.logger)
        let rows = try await connection.query("SELECT id FROM listings WHERE reserved_for = \(account) AND state = 'reserved'", logger: database.logger)
        for listing in try await rows.decode(UUID.self).reduce(into: [UUID](), { $0.append($1) }) { try await release(listing, on: connection) }
    }
}
