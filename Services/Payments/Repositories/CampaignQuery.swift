import Contracts
import Envelope
import Foundation
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// One page of open campaigns in a sort, after a cursor: keyset pages on the sort's value and the
/// campaign's number, so pages stay stable while campaigns and donations arrive. The sorts on what
/// campaigns raised read every page of a walk as of its first page: the cursor carries the last
/// ledger transfer that page counted, and later pages leave out what the ledger moved after it (it
/// is append-only), so a donation or a refund in between moves no campaign across the cursor.
struct CampaignQuery: Sendable {
    let sort: Payments.Campaigns.Sort
    let category: Payments.Category?
    let words: String?
    let after: Cursor?
    let limit: Int

    /// Whether `sort` orders by what campaigns raised, which donations and refunds move.
    static func onRaised(_ sort: Payments.Campaigns.Sort) -> Bool { sort == .mostFunded || sort == .nearlyThere }

    /// Where the previous page stopped: its sort, the sort's value there and the campaign's number,
    /// and for a sort on what campaigns raised, the last transfer its walk's first page counted.
    struct Cursor: Equatable {
        let sort: Payments.Campaigns.Sort
        let key: Int64
        let seq: Int64
        let asOf: Int64?

        var text: String { PageCursor.text([sort.rawValue, String(key), String(seq)] + (asOf.map { [String($0)] } ?? [])) }

        init(sort: Payments.Campaigns.Sort, key: Int64, seq: Int64, asOf: Int64?) {
            self.sort = sort
            self.key = key
            self.seq = seq
            self.asOf = asOf
        }

        /// A cursor a page made, or nil: every part must read as what it is, and a sort on what
        /// campaigns raised must say as of which transfer.
        init?(_ text: String) {
            guard let parts = PageCursor.parts(text), let first = parts.first, let sort = Payments.Campaigns.Sort(rawValue: first),
                  parts.count == (CampaignQuery.onRaised(sort) ? 4 : 3), let key = Int64(parts[1]), let seq = Int64(parts[2])
            else { return nil }
            var asOf: Int64?
            if parts.count == 4 {
                guard let transfer = Int64(parts[3]), transfer >= 0 else { return nil }
                asOf = transfer
            }
            self.init(sort: sort, key: key, seq: seq, asOf: asOf)
        }
    }

    /// The request checked: `invalid` naming each field that is wrong.
    init(_ request: Payments.Campaigns.List.Request) throws(OperationError) {
        var validation = Validation()
        limit = request.limit ?? PageRequest.defaultLimit
        validation.check(PageRequest.limits.contains(limit), "data.limit", "must be from 1 to \(PageRequest.limits.upperBound)")
        words = validation.checkText(request.q, "data.q", 1...200)
        // The seed's R7: "ordered by ascending order of creation time".
        sort = request.sort ?? .oldest
        category = request.category
        after = request.after.flatMap(Cursor.init)
        if request.after != nil { validation.check(after?.sort == sort, "data.after", "must be a nextAfter of a previous page with the same sort") }
        try validation.finish()
    }

    /// The sort's value of a row (`c` a campaign, `a` its ledger account, `mv` what moved on it
    /// after the walk's first page), and whether it runs downward.
    private var key: (sql: String, descending: Bool) {
        switch sort {
        case .newest: ("0::bigint", true)
        case .oldest: ("0::bigint", false)
        case .endingSoon: ("(extract(epoch FROM c.ends_at) * 1000000)::bigint", false)
        case .mostFunded: (Self.raised, true)
        case .nearlyThere: ("(\(Self.raised) * 10000 / c.goal_minor)", true)
        }
    }

    /// What a campaign had raised as of the walk's first page: what it holds now, less what moved since.
    private static let raised = "(-COALESCE(a.balance, 0) + COALESCE(mv.moved, 0))"

    /// `campaigns c` with `mv.moved`, the sum of the entries on each campaign's account in transfers
    /// after `asOf` (a few: `Payments.Bounds.walkSpan` at most, through the index on the transfers' numbers).
    private static func campaignsMoved(after asOf: Int64) -> String {
        // asOf is an Int64, written into the SQL as the number it is.
        """
        campaigns c LEFT JOIN (
            SELECT la.campaign_id, sum(e.amount)::bigint AS moved
            FROM ledger_transfers t JOIN ledger_entries e ON e.transfer_id = t.id
            JOIN ledger_accounts la ON la.id = e.account_id AND la.kind = 'campaign'
            WHERE t.seq > \(asOf) GROUP BY la.campaign_id) mv ON mv.campaign_id = c.id
        """
    }

    /// The page for `viewer`, and the cursor of the next when the page is full.
    func page(_ store: CampaignStore, viewer: UUID, now: Date, on connection: PostgresConnection) async throws -> ([Payments.Campaign], String?) {
        // A walk on what campaigns raised is read as of the last transfer its first page counted. A
        // transfer still being committed when that page was read and numbered before that one is
        // the exception: later pages count it and the first did not (a posting's transaction lasts
        // milliseconds).
        var asOf: Int64?
        if Self.onRaised(sort) {
            let last = try await store.ledger.lastTransfer(on: connection)
            // A later page sums what moved since the first: an older cursor (or a made-up one) is refused rather than summed.
            if let walked = after?.asOf, last - walked > Payments.Bounds.walkSpan {
                throw OperationError.invalid(
                    field: "data.after", "is too old: over \(Payments.Bounds.walkSpan) transfers were posted to the ledger since its first page; start again without after")
            }
            asOf = after?.asOf ?? last
        }
        let (keySQL, descending) = key
        let direction = descending ? "DESC" : "ASC", beyond = descending ? "<" : ">"
        var query = CampaignStore.select(viewer: viewer, key: keySQL, from: asOf.map(Self.campaignsMoved(after:)) ?? "campaigns c")
        func bind(_ value: some PostgresDynamicTypeEncodable) -> String { query.binds.placeholder(value) }
        // The project's own campaign has a route of its own (`GET /v1/project`), not a place among the others.
        query.sql += " WHERE c.closed_at IS NULL AND c.ends_at > \(bind(now)) AND c.id <> \(bind(UUID(uuidString: Payments.projectCampaignId)!))"
        if let category { query.sql += " AND c.category = \(bind(category.rawValue))" }
        if let words { query.sql += " AND c.title_words @@ websearch_to_tsquery('simple', \(bind(words)))" }
        if sort == .nearlyThere { query.sql += " AND \(Self.raised) * 10000 >= c.goal_minor * \(Payments.Bounds.nearlyThere)" }
        if let after { query.sql += " AND (\(keySQL), c.seq) \(beyond) (\(bind(after.key)), \(bind(after.seq)))" }
        query.sql += " ORDER BY \(keySQL) \(direction), c.seq \(direction) LIMIT \(bind(limit))"
        let campaigns = try await store.rows(query, on: connection)
        guard campaigns.count == limit, let last = campaigns.last else { return (campaigns.map(\.view), nil) }
        return (campaigns.map(\.view), Cursor(sort: sort, key: last.key, seq: last.seq, asOf: asOf).text)
    }
}
