import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// The feed and search of a network: one query made of the filters given, ordered by the sort and
/// paged by a key that stays put while new listings arrive (the feed number, after the sort's own
/// value), so a page never repeats or skips a listing that was there when the first page was read.
///
/// Words are searched as words (the text search, ranked by `ts_rank`). When they find nothing, each
/// is replaced by every close word of the network's published titles (pg_trgm's similarity over the
/// small table `title_words`, above its threshold: `FeedQuery+CloseWords.swift`), any of which
/// may match, closer ones ranked higher, and those are searched instead (`searchedFor`). Matching the
/// titles themselves by trigrams cost every candidate a similarity check (70 ms for a word close to
/// 7,000 of 100,000 titles); the vocabulary holds each word once.
struct FeedQuery: Sendable {
    let university: String
    /// Whose feed: listings of those they blocked, or who blocked them, are left out.
    let viewer: UUID
    let now: Date
    let request: MarketplaceChat.Listings.Search.Request
    let words: String?
    let sort: MarketplaceChat.Sort
    let after: Cursor?
    /// The close words searched for instead of the words given, which found nothing: for each word
    /// (those with none left out), the titles' words near it, the closest first.
    var correction: [[CloseWord]]?
    let limit: Int

    /// Where the previous page stopped: the sort's value (empty for newest) and the feed number.
    struct Cursor: Equatable {
        let sort: MarketplaceChat.Sort
        let key: String
        let seq: Int64
        /// The page was of close spellings.
        var typos = false

        var text: String { PageCursor.text([sort.rawValue, key, String(seq)] + (typos ? ["t"] : [])) }

        init(sort: MarketplaceChat.Sort, key: String, seq: Int64) {
            self.sort = sort
            self.key = key
            self.seq = seq
        }

        /// A cursor this query made, or nil: its sort's value must read as one (an integer price,
        /// a real rank), so a forged one cannot reach SQL as anything else.
        init?(_ text: String) {
            guard let parts = PageCursor.parts(text), parts.count == 3 || parts.count == 4 && parts[3] == "t", let sort = MarketplaceChat.Sort(rawValue: parts[0]),
                  let seq = Int64(parts[2])
            else { return nil }
            switch sort {
            case .newest: guard parts[1].isEmpty else { return nil }
            case .priceAscending, .priceDescending: guard Int64(parts[1]) != nil else { return nil }
            case .relevance: guard let rank = Float(parts[1]), rank.isFinite, rank >= 0 else { return nil }
            }
            self.init(sort: sort, key: parts[1], seq: seq)
            typos = parts.count == 4
        }
    }

    /// The request checked: `invalid` naming each field that is wrong.
    init(_ request: MarketplaceChat.Listings.Search.Request, university: String, viewer: UUID, now: Date) throws(OperationError) {
        var validation = Validation()
        let limit = request.limit ?? PageRequest.defaultLimit
        validation.check(PageRequest.limits.contains(limit), "data.limit", "must be from 1 to \(PageRequest.limits.upperBound)")
        let words = Self.checkFilters(q: request.q, minPrice: request.minPrice, maxPrice: request.maxPrice, &validation)
        let sort = request.sort ?? (words == nil ? .newest : .relevance)
        validation.check(sort != .relevance || words != nil, "data.sort", "relevance needs words to search for (q)")
        var after: Cursor?
        if let text = request.after {
            after = Cursor(text)
            validation.check(after != nil && after?.sort == sort, "data.after", "must be a nextAfter of a previous page with the same sort")
        }
        try validation.finish()
        self.university = university
        self.viewer = viewer
        self.now = now
        self.request = request
        self.words = words
        self.sort = sort
        self.after = after
        self.limit = limit
    }

    /// The words and the price range of a search (or a saved one): the words trimmed, the prices in
    /// bounds and in order; problems recorded naming their fields.
    static func checkFilters(q: String?, minPrice: Int64?, maxPrice: Int64?, _ validation: inout Validation) -> String? {
        let words = validation.checkText(q, "data.q", MarketplaceChat.Bounds.query)
        let bound = 0...MarketplaceChat.Bounds.priceMinorUnits
        if let minPrice { validation.check(bound.contains(minPrice), "data.minPrice", "must be from 0 to \(bound.upperBound)") }
        if let maxPrice { validation.check(bound.contains(maxPrice), "data.maxPrice", "must be from 0 to \(bound.upperBound)") }
        if let minPrice, let maxPrice { validation.check(minPrice <= maxPrice, "data.maxPrice", "must not be below minPrice") }
        return words
    }


    /// The query, its values bound in order.
    var query: PostgresQuery {
        var binds = PostgresBindings()
        func bind(_ value: some PostgresDynamicTypeEncodable) -> String { binds.placeholder(value) }
        var conditions = [
            "l.university_id = \(bind(university))", "l.state = 'active'", "l.expires_at > \(bind(now))",
            BlockStore.unblocked("l.seller", viewerPlaceholder: bind(viewer)),
            "NOT \(ModerationStore.outOfSight("l.seller", now: bind(now)))",
        ]
        if let category = request.category { conditions.append("l.category_id = \(bind(category))") }
        if let campus = request.campus { conditions.append("l.campus_id = \(bind(campus))") }
        if let condition = request.condition { conditions.append("l.condition = \(bind(condition.rawValue))") }
        if request.free == true { conditions.append("l.price_minor = 0") }
        if let min = request.minPrice { conditions.append("l.price_minor >= \(bind(min))") }
        if let max = request.maxPrice { conditions.append("l.price_minor <= \(bind(max))") }
        var rank = "0::real", matched = "'{}'::int[]"
        if let correction {
            let close = Self.closeWordsSQL(correction, binds: &binds)
            (rank, matched) = (close.rank, close.matched)
            conditions.append(close.condition)
        } else if let words {
            let placeholder = bind(words)
            rank = "ts_rank(l.search_doc, websearch_to_tsquery('english'::regconfig, \(placeholder)))"
            conditions.append("l.search_doc @@ websearch_to_tsquery('english'::regconfig, \(placeholder))")
        }
        // With words, the matches come from the word index and are sorted; ordering by the bare
        // columns let the planner walk the feed's index instead, reading every listing for a rare word.
        let key: String, order: String, sorted = words == nil ? "" : " + 0"
        switch sort {
        case .newest: (key, order) = ("''", "l.feed_seq\(sorted) DESC")
        case .priceAscending: (key, order) = ("l.price_minor::text", "l.price_minor\(sorted), l.feed_seq\(sorted)")
        case .priceDescending: (key, order) = ("l.price_minor::text", "l.price_minor\(sorted) DESC, l.feed_seq\(sorted) DESC")
        case .relevance: (key, order) = ("l.rank::text", "l.rank DESC, l.feed_seq DESC")
        }
        if let after {
            switch sort {
            case .newest: conditions.append("l.feed_seq < \(bind(after.seq))")
            case .priceAscending: conditions.append("(l.price_minor, l.feed_seq) > (\(bind(Int64(after.key) ?? 0)), \(bind(after.seq)))")
            case .priceDescending: conditions.append("(l.price_minor, l.feed_seq) < (\(bind(Int64(after.key) ?? 0)), \(bind(after.seq)))")
            case .relevance: conditions.append("(l.rank, l.feed_seq) < (\(bind(Float(after.key) ?? 0)), \(bind(after.seq)))")
            }
        }
        let sql = """
            SELECT l.id, l.seller, t.username, l.title, l.price_minor, l.currency, l.category_id, l.condition, l.campus_id,
                (SELECT p.media_id FROM photos p WHERE p.listing_id = l.id ORDER BY p.position LIMIT 1), l.published_at, l.feed_seq, \(key),
                \(matched)
            FROM (SELECT l.*, \(rank) AS rank FROM listings l) l JOIN traders t ON t.account_id = l.seller
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(order)
            LIMIT \(limit)
            """
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    /// One page of cards, and the cursor of the next when the page is full: of the words, or of the
    /// close words when the words find nothing (a later page of those corrects them again).
    func page(on connection: PostgresConnection, database: Database) async throws -> MarketplaceChat.Listings.Search.Response {
        guard let words, correction == nil, after == nil || after?.typos == true else { return try await run(on: connection, database: database) }
        if after == nil {
            let found = try await run(on: connection, database: database)
            guard found.listings.isEmpty else { return found }
        }
        let close = try await Self.closeWords(to: words, in: university, on: connection, database: database)
        guard !close.isEmpty else { return .init(listings: [], nextAfter: nil) }
        var closer = self
        closer.correction = close
        let found = try await closer.run(on: connection, database: database)
        // The correction is said only with what it found: the vocabulary is the network's, and may
        // hold words of listings this caller does not see (a blocked seller's).
        return found.listings.isEmpty ? .init(listings: [], nextAfter: nil) : found
    }

    private func run(on connection: PostgresConnection, database: Database) async throws -> MarketplaceChat.Listings.Search.Response {
        let rows = try await connection.query(query, logger: database.logger)
        var cards: [MarketplaceChat.Card] = []
        var last: Cursor?
        var matched = Set<Int>()
        for try await postgresRow in rows {
            let row = PostgresRandomAccessRow(postgresRow)
            func cell<T: PostgresDecodable>(_ index: Int, _: T.Type) throws -> T { try row[index].decode(T.self) }
            let condition = MarketplaceChat.Condition(rawValue: try cell(7, String.self)) ?? .good
            cards.append(MarketplaceChat.Card(
                id: ListingStore.text(try cell(0, UUID.self)), sellerId: ListingStore.text(try cell(1, UUID.self)), sellerUsername: try cell(2, String.self),
                title: try cell(3, String.self),
                price: Money(minorUnits: try cell(4, Int64.self), currency: Currency(rawValue: try cell(5, String.self)) ?? .eur),
                category: try cell(6, String.self), condition: condition, campus: try cell(8, String.self),
                coverPhotoId: try cell(9, UUID?.self).map(ListingStore.text), state: .active, publishedAt: try cell(10, Date?.self)))
            last = Cursor(sort: sort, key: try cell(12, String.self), seq: try cell(11, Int64.self))
            last?.typos = correction != nil
            if correction != nil { matched.formUnion(try cell(13, [Int].self)) }
        }
        return .init(listings: cards, nextAfter: cards.count == limit ? last?.text : nil, searchedFor: searchedFor(matched))
    }
}
