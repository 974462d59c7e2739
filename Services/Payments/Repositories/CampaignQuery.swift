import Contracts
import Envelope
import Foundation
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// One page of open campaigns in a sort, after a cursor: keyset pages on the sort's value and the
/// campaign's number, so pages stay stable while campaigns and donations arrive.
struct CampaignQuery: Sendable {
    let sort: Payments.Campaigns.Sort
    let category: Payments.Category?
    let words: String?
    let after: Cursor?
    let limit: Int

    /// Where the previous page stopped: its sort, the sort's value there and the campaign's number.
    struct Cursor: Equatable {
        let sort: Payments.Campaigns.Sort
        let key: Int64
        let seq: Int64

        var text: String { PageCursor.text([sort.rawValue, String(key), String(seq)]) }

        init(sort: Payments.Campaigns.Sort, key: Int64, seq: Int64) {
            self.sort = sort
            self.key = key
            self.seq = seq
        }

        /// A cursor a page made, or nil: every part must read as what it is.
        init?(_ text: String) {
            guard let parts = PageCursor.parts(text), parts.count == 3, let sort = Payments.Campaigns.Sort(rawValue: parts[0]), let key = Int64(parts[1]), let seq = Int64(parts[2]) else {
                return nil
            }
            self.init(sort: sort, key: key, seq: seq)
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

    /// The sort's value of a row (`c` a campaign, `a` its ledger account), and whether it runs downward.
    private var key: (sql: String, descending: Bool) {
        switch sort {
        case .newest: ("0::bigint", true)
        case .oldest: ("0::bigint", false)
        case .endingSoon: ("(extract(epoch FROM c.ends_at) * 1000000)::bigint", false)
        case .mostFunded: ("-COALESCE(a.balance, 0)", true)
        case .nearlyThere: ("(-COALESCE(a.balance, 0) * 10000 / c.goal_minor)", true)
        }
    }

    /// The page for `viewer`, and the cursor of the next when the page is full.
    func page(_ store: CampaignStore, viewer: UUID, now: Date, on connection: PostgresConnection) async throws -> ([Payments.Campaign], String?) {
        let (keySQL, descending) = key
        let direction = descending ? "DESC" : "ASC", beyond = descending ? "<" : ">"
        var query = CampaignStore.select(viewer: viewer, key: keySQL)
        func bind(_ value: some PostgresDynamicTypeEncodable) -> String { query.binds.placeholder(value) }
        // The project's own campaign has a route of its own (`GET /v1/project`), not a place among the others.
        query.sql += " WHERE c.closed_at IS NULL AND c.ends_at > \(bind(now)) AND c.id <> \(bind(UUID(uuidString: Payments.projectCampaignId)!))"
        if let category { query.sql += " AND c.category = \(bind(category.rawValue))" }
        if let words { query.sql += " AND c.title_words @@ websearch_to_tsquery('simple', \(bind(words)))" }
        if sort == .nearlyThere { query.sql += " AND -COALESCE(a.balance, 0) * 10000 >= c.goal_minor * \(Payments.Bounds.nearlyThere)" }
        if let after { query.sql += " AND (\(keySQL), c.seq) \(beyond) (\(bind(after.key)), \(bind(after.seq)))" }
        query.sql += " ORDER BY \(keySQL) \(direction), c.seq \(direction) LIMIT \(bind(limit))"
        let campaigns = try await store.rows(query, on: connection)
        guard campaigns.count == limit, let last = campaigns.last else { return (campaigns.map(\.view), nil) }
        return (campaigns.map(\.view), Cursor(sort: sort, key: last.key, seq: last.seq).text)
    }
}
