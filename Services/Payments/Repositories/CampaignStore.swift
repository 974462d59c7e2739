import Contracts
import Envelope
import Foundation
import Media
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// `payments.campaigns`: campaigns with what they raised (their ledger account's balance) and
/// whether the viewer bookmarked them.
struct CampaignStore: Sendable {
    let database: Database
    let ledger: Ledger
    /// Cover pictures.
    let media: MediaLibrary

    init(database: Database, ledger: Ledger) {
        self.database = database
        self.ledger = ledger
        media = MediaLibrary(database: database)
    }

    /// A campaign as stored, with its place in the newest/oldest order and its value in a sort.
    struct Row: Sendable {
        let id: UUID
        let seq: Int64
        let key: Int64
        let owner: UUID?
        let ownerKarma: UUID
        let view: Payments.Campaign
    }

    /// The columns `rows` reads, for `viewer`'s bookmarks, and `key` (SQL of `c`, a campaign, and `a`,
    /// its ledger account) last, from `campaigns` (or `from`, which names them `c`).
    static func select(viewer: UUID, key: String = "0::bigint", from: String = "campaigns c") -> PostgresQuery {
        """
        SELECT c.id, c.seq, c.owner_id, p.username, c.title, c.story, c.beneficiary, c.category, c.goal_minor, c.ends_at, c.closed_at, c.created_at,
               c.version, -COALESCE(a.balance, 0), EXISTS (SELECT 1 FROM bookmarks b WHERE b.campaign_id = c.id AND b.account_id = \(viewer)),
               CASE WHEN c.owner_id = \(viewer) THEN c.weekly_progress END, m.media_type, m.width, m.height, c.owner_karma, \(unescaped: key)
        FROM \(unescaped: from) LEFT JOIN people p ON p.account_id = c.owner_id LEFT JOIN media_objects m ON m.id = c.cover_media
        LEFT JOIN ledger_accounts a ON a.kind = 'campaign' AND a.campaign_id = c.id
        """
    }

    func rows(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> [Row] {
        let now = database.now()
        var rows: [Row] = []
        let found = try await connection.query(query, logger: database.logger)
            .decode((UUID, Int64, UUID?, String?, String?, String?, String?, String, Int64, Date, Date?, Date, Int, Int64, Bool, Bool?, String?, Int?, Int?,
                     UUID, Int64).self)
        for try await (id, seq, owner, username, title, story, beneficiary, category, goal, endsAt, closedAt, createdAt, version, raised, bookmarked, weekly,
                       coverType, coverWidth, coverHeight, karma, key) in found {
            let cover = coverType.flatMap { type in coverWidth.flatMap { width in coverHeight.map { Payments.Cover(mediaType: type, width: width, height: $0) } } }
            let state: Payments.CampaignState = closedAt == nil && endsAt > now ? .open : .closed
            let view = Payments.Campaign(
                id: Self.text(id), owner: owner.map { .init(accountId: Self.text($0), username: username ?? "member") }, title: title, story: story,
                beneficiary: beneficiary, category: Payments.Category(rawValue: category) ?? .other, goal: Self.euros(goal), endsAt: endsAt, state: state,
                closedAt: closedAt ?? (state == .closed ? endsAt : nil), createdAt: createdAt, version: version, raised: Self.euros(raised),
                progressBasisPoints: Self.progress(raised, of: goal), bookmarked: bookmarked, weeklyProgress: weekly, cover: cover)
            rows.append(Row(id: id, seq: seq, key: key, owner: owner, ownerKarma: karma, view: view))
        }
        return rows
    }

    /// Campaign `id` as `viewer` sees it, or nil.
    func campaign(_ id: UUID, viewer: UUID, locking: Bool = false, on connection: PostgresConnection) async throws -> Row? {
        if locking { try await connection.query("SELECT 1 FROM campaigns WHERE id = \(id) FOR UPDATE", logger: database.logger) }
        var query = Self.select(viewer: viewer)
        let campaign = query.binds.placeholder(id)
        query.sql += " WHERE c.id = \(campaign)"
        return try await rows(query, on: connection).first
    }

    struct New: Sendable {
        let title: String
        let story: String
        let beneficiary: String
        let category: Payments.Category
        let goal: Int64
        let endsAt: Date
        let weeklyProgress: Bool
    }

    /// Starts `new` for `owner`, with its ledger account and the owner's karma account.
    func create(_ new: New, owner: UUID, on connection: PostgresConnection) async throws -> UUID {
        let id = UUID()
        let karma = try await ledger.karmaAccount(of: owner, on: connection)
        try await connection.query(
            """
            INSERT INTO campaigns (id, owner_id, title, story, beneficiary, category, goal_minor, currency, ends_at, created_at, owner_karma, weekly_progress)
            VALUES (\(id), \(owner), \(new.title), \(new.story), \(new.beneficiary), \(new.category.rawValue), \(new.goal), \(Payments.currency.code),
                    \(new.endsAt), \(database.now()), \(karma), \(new.weeklyProgress))
            """,
            logger: database.logger)
        _ = try await ledger.id(of: .campaign(id), on: connection)
        return id
    }

    /// Writes the changed fields of campaign `id` and moves its version on.
    func update(_ id: UUID, title: String?, story: String?, beneficiary: String?, category: Payments.Category?, goal: Int64?, endsAt: Date?,
                weeklyProgress: Bool?, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            UPDATE campaigns SET title = COALESCE(\(title), title), story = COALESCE(\(story), story),
                beneficiary = COALESCE(\(beneficiary), beneficiary), category = COALESCE(\(category?.rawValue), category),
                goal_minor = COALESCE(\(goal), goal_minor), ends_at = COALESCE(\(endsAt), ends_at),
                weekly_progress = COALESCE(\(weeklyProgress), weekly_progress), version = version + 1
            WHERE id = \(id)
            """,
            logger: database.logger)
    }

    /// Closes campaign `id` (unless it is) and deletes its texts and its cover picture; its ledger
    /// history stays.
    func close(_ id: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            UPDATE campaigns SET closed_at = COALESCE(closed_at, LEAST(ends_at, \(database.now()))), title = NULL, story = NULL, beneficiary = NULL,
                version = version + 1
            WHERE id = \(id) AND (title IS NOT NULL OR closed_at IS NULL)
            """,
            logger: database.logger)
        try await setCover(id, nil, on: connection)
    }

    /// Makes `media` (nil: none) campaign `id`'s cover picture, deleting the one before.
    func setCover(_ id: UUID, _ media: UUID?, on connection: PostgresConnection) async throws {
        let before = try await connection.query(
            "UPDATE campaigns c SET cover_media = \(media) FROM campaigns old WHERE c.id = \(id) AND old.id = c.id RETURNING old.cover_media",
            logger: database.logger
        ).decode(UUID?.self).reduce(into: [UUID]()) { if let old = $1, old != media { $0.append(old) } }
        try await self.media.delete(before, on: connection)
    }

    /// The cover picture of campaign `id` while it keeps its texts; nil without one.
    func cover(of id: UUID, on connection: PostgresConnection) async throws -> MediaRecord? {
        let rows = try await connection.query("SELECT cover_media FROM campaigns WHERE id = \(id) AND title IS NOT NULL", logger: database.logger)
        guard let media = try await rows.decode(UUID?.self).first(where: { _ in true }) ?? nil else { return nil }
        return try await self.media.record(media, on: connection)
    }

    /// `owner`'s campaigns (`openOnly`: those still open) as `viewer` sees them, the newest first, below `before`.
    func owned(by owner: UUID, viewer: UUID, openOnly: Bool = false, before: Int64?, limit: Int, on connection: PostgresConnection) async throws -> [Row] {
        var query = Self.select(viewer: viewer)
        let (mine, below, most) = (query.binds.placeholder(owner), query.binds.placeholder(before), query.binds.placeholder(limit))
        let open = openOnly ? " AND c.closed_at IS NULL AND c.ends_at > \(query.binds.placeholder(database.now()))" : ""
        query.sql += " WHERE c.owner_id = \(mine)\(open) AND (\(below)::bigint IS NULL OR c.seq < \(below)) ORDER BY c.seq DESC LIMIT \(most)"
        return try await rows(query, on: connection)
    }

    static func text(_ id: UUID) -> String { id.uuidString.lowercased() }

    static func euros(_ cents: Int64) -> Money { Money(minorUnits: cents, currency: Payments.currency) }

    /// `raised` of `goal` in basis points, rounded down.
    static func progress(_ raised: Int64, of goal: Int64) -> Int {
        guard goal > 0, raised > 0 else { return 0 }
        let (product, overflow) = raised.multipliedReportingOverflow(by: 10_000)
        return overflow ? Int.max : Int(min(product / goal, Int64(Int.max)))
    }
}
