import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.listings`: listings, their states and the moves between them.
struct ListingStore: Sendable {
    let database: Database

    /// What a seller writes of a listing.
    struct Values: Sendable, Equatable {
        var title: String
        var description: String
        var priceMinorUnits: Int64
        var category: String
        var condition: MarketplaceChat.Condition
        var campus: String
    }

    struct Row: Sendable {
        let id: UUID
        let number: Int64
        let seller: UUID
        let university: String
        let values: Values
        let view: MarketplaceChat.Listing
    }

    static let columns = """
        l.id, l.number, l.seller, l.university_id, t.username, l.title, l.description, l.price_minor, l.currency, l.category_id, l.condition,
        l.campus_id, l.state, l.created_at, l.updated_at, l.published_at, l.expires_at, l.sold_at, l.version,
        ARRAY(SELECT p.media_id FROM photos p WHERE p.listing_id = l.id ORDER BY p.position)
        FROM listings l JOIN traders t ON t.account_id = l.seller
        """

    /// The rows `condition` selects, as `columns` reads them.
    func rows(where condition: PostgresQuery, orderedBy order: String = "", on connection: PostgresConnection) async throws -> [Row] {
        var query = PostgresQuery.select(Self.columns, where: condition)
        query.sql += order
        let rows = try await connection.query(query, logger: database.logger)
        var result: [Row] = []
        for try await postgresRow in rows {
            let row = PostgresRandomAccessRow(postgresRow)
            func cell<T: PostgresDecodable>(_ index: Int, _: T.Type) throws -> T { try row[index].decode(T.self) }
            let (id, number, seller, university) = (try cell(0, UUID.self), try cell(1, Int64.self), try cell(2, UUID.self), try cell(3, String.self))
            let (username, title, description, price) = (try cell(4, String.self), try cell(5, String.self), try cell(6, String.self), try cell(7, Int64.self))
            let (currency, category, condition, campus) = (try cell(8, String.self), try cell(9, String.self), try cell(10, String.self), try cell(11, String.self))
            let (state, created, updated, published) = (try cell(12, String.self), try cell(13, Date.self), try cell(14, Date.self), try cell(15, Date?.self))
            let (expires, sold, version, photos) = (try cell(16, Date?.self), try cell(17, Date?.self), try cell(18, Int.self), try cell(19, [UUID].self))
            let values = Values(
                title: title, description: description, priceMinorUnits: price, category: category,
                condition: MarketplaceChat.Condition(rawValue: condition) ?? .good, campus: campus)
            let listingState = MarketplaceChat.ListingState(rawValue: state) ?? .hidden
            let view = MarketplaceChat.Listing(
                id: Self.text(id), sellerId: Self.text(seller), sellerUsername: username, title: title, description: description,
                price: Money(minorUnits: price, currency: Currency(rawValue: currency) ?? .eur), category: category, condition: values.condition,
                campus: campus, photoIds: photos.map(Self.text), state: listingState, createdAt: created, updatedAt: updated, publishedAt: published,
                expiresAt: listingState == .active ? expires : nil, soldAt: sold, version: version)
            result.append(Row(id: id, number: number, seller: seller, university: university, values: values, view: view))
        }
        return result
    }

    static func text(_ id: UUID) -> String { id.uuidString.lowercased() }

    /// The listing `id`, unless removed.
    func listing(_ id: UUID, locking: Bool = false, on connection: PostgresConnection) async throws -> Row? {
        try await rows(where: "l.id = \(id) AND l.state <> 'removed'", orderedBy: locking ? " FOR UPDATE OF l" : "", on: connection).first
    }

    /// A new listing of `seller`, a draft or (`publish`) active for `lifetime`.
    func create(_ values: Values, seller: UUID, network: TraderStore.Network, publish: Bool, lifetime: Duration,
                on connection: PostgresConnection) async throws -> UUID {
        let id = UUID(), now = database.now()
        if publish { try await learnWords(of: values.title, in: network.university, on: connection) }
        try await connection.query(
            """
            INSERT INTO listings (id, seller, university_id, campus_id, category_id, title, description, price_minor, currency, condition, state,
                                  feed_seq, created_at, updated_at, published_at, expires_at)
            VALUES (\(id), \(seller), \(network.university), \(values.campus), \(values.category), \(values.title), \(values.description),
                    \(values.priceMinorUnits), \(network.currency.code), \(values.condition.rawValue), \(publish ? "active" : "draft"),
                    \(unescaped: publish ? "nextval('listing_feed_seq')" : "NULL"), \(now), \(now), \(publish ? now : nil),
                    \(publish ? now.adding(lifetime) : nil))
            """,
            logger: database.logger)
        return id
    }

    /// Keeps the words of a published `title` in its network's vocabulary, which misspelled searches
    /// are corrected against.
    func learnWords(of title: String, in university: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO title_words (university_id, word)
            SELECT \(university), unnest(tsvector_to_array(to_tsvector('simple'::regconfig, \(title)))) ON CONFLICT DO NOTHING
            """,
            logger: database.logger)
    }

    /// Makes the vocabulary again from the active listings (words of listings gone leave); how many
    /// words it holds.
    func rebuildWords(on connection: PostgresConnection) async throws -> Int {
        try await connection.query("DELETE FROM title_words", logger: database.logger)
        let rows = try await connection.query(
            """
            WITH kept AS (
                INSERT INTO title_words (university_id, word)
                SELECT DISTINCT university_id, unnest(tsvector_to_array(to_tsvector('simple'::regconfig, title))) FROM listings
                WHERE state = 'active' AND expires_at > \(database.now())
                ON CONFLICT DO NOTHING RETURNING 1)
            SELECT count(*) FROM kept
            """,
            logger: database.logger)
        return try await rows.decode(Int.self).first { _ in true } ?? 0
    }

    func update(_ id: UUID, to values: Values, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            UPDATE listings SET title = \(values.title), description = \(values.description), price_minor = \(values.priceMinorUnits),
                category_id = \(values.category), condition = \(values.condition.rawValue), campus_id = \(values.campus),
                version = version + 1, updated_at = \(database.now())
            WHERE id = \(id)
            """,
            logger: database.logger)
    }

    /// Active for `lifetime` from now, at the top of the feed.
    func publish(_ id: UUID, title: String, in university: String, lifetime: Duration, on connection: PostgresConnection) async throws {
        try await learnWords(of: title, in: university, on: connection)
        let now = database.now()
        try await connection.query(
            """
            UPDATE listings SET state = 'active', feed_seq = nextval('listing_feed_seq'), published_at = \(now), expires_at = \(now.adding(lifetime)),
                version = version + 1, updated_at = \(now)
            WHERE id = \(id)
            """,
            logger: database.logger)
    }

    func move(_ id: UUID, to state: MarketplaceChat.ListingState, on connection: PostgresConnection) async throws {
        let now = database.now()
        try await connection.query(
            """
            UPDATE listings SET state = \(state.rawValue), version = version + 1, updated_at = \(now),
                sold_at = CASE WHEN \(state.rawValue) = 'sold' THEN \(now) ELSE sold_at END
            WHERE id = \(id)
            """,
            logger: database.logger)
    }

    /// Records who bought a listing sold through the marketplace.
    func sold(_ id: UUID, to buyer: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE listings SET buyer = \(buyer) WHERE id = \(id)", logger: database.logger)
    }

    /// The seller's listings (of one state, or all but removed), newest first.
    func mine(_ seller: UUID, state: MarketplaceChat.ListingState?, limit: Int, before: Int64?, on connection: PostgresConnection) async throws -> [Row] {
        let condition: PostgresQuery = state.map { state in
            "l.seller = \(seller) AND l.state = \(state.rawValue) AND l.number < \(before ?? Int64.max)"
        } ?? "l.seller = \(seller) AND l.state <> 'removed' AND l.number < \(before ?? Int64.max)"
        return try await rows(where: condition, orderedBy: " ORDER BY l.number DESC LIMIT \(limit)", on: connection)
    }

    /// Active listings whose time ran out become expired; how many.
    func expire(on connection: PostgresConnection) async throws -> Int {
        let now = database.now()
        let rows = try await connection.query(
            """
            WITH gone AS (
                UPDATE listings SET state = 'expired', version = version + 1, updated_at = \(now)
                WHERE state = 'active' AND expires_at <= \(now) RETURNING 1)
            SELECT count(*) FROM gone
            """,
            logger: database.logger)
        return try await rows.decode(Int.self).first { _ in true } ?? 0
    }
}
