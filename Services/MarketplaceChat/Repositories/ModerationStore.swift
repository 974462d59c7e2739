import Contracts
import Crypto
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.moderation`: reports gathered into cases, the decisions that close them (the
/// audit log), suspensions and appeals.
struct ModerationStore: Sendable {
    let database: Database
    /// Wraps each case's key, which seals its snapshot (MARKETPLACE_CHAT_KEY).
    let keys: KeyRing

    typealias Subject = MarketplaceChat.ReportSubject
    typealias Action = MarketplaceChat.ModerationAction

    /// A condition for queries: the account in `column` is out of the network's sight, suspended
    /// (at `now`) or hidden by its reporters until a moderator decides.
    static func outOfSight(_ column: String, now: String) -> String {
        """
        (EXISTS (SELECT 1 FROM suspensions s WHERE s.account_id = \(column) AND (s.until IS NULL OR s.until > \(now)))
         OR EXISTS (SELECT 1 FROM moderation_cases mc WHERE mc.subject_kind = 'account' AND mc.subject_id = \(column) AND mc.open
                    AND mc.hidden_state IS NOT NULL))
        """
    }

    func isOutOfSight(_ account: UUID, on connection: PostgresConnection) async throws -> Bool {
        var binds = PostgresBindings()
        let (who, now) = (binds.placeholder(account), binds.placeholder(database.now()))
        let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT \(Self.outOfSight(who, now: now))", binds: binds), logger: database.logger)
        return try await rows.decode(Bool.self).first { _ in true } ?? false
    }

    /// A suspension in force: its end, nil when until lifted.
    struct Suspension: Sendable {
        let until: Date?
    }

    func suspension(of account: UUID, on connection: PostgresConnection) async throws -> Suspension? {
        let rows = try await connection.query(
            "SELECT until FROM suspensions WHERE account_id = \(account) AND (until IS NULL OR until > \(database.now()))", logger: database.logger)
        return try await rows.decode(Date?.self).first { _ in true }.map(Suspension.init)
    }

    // MARK: - Reports

    /// What a report is about: the thing, who answers for it, its network, and how it is now.
    struct Reported: Sendable {
        let kind: Subject
        let id: UUID
        let account: UUID
        let university: String?
        let snapshot: MarketplaceChat.Snapshot
    }

    /// Adds `reporter`'s report to the open case of `reported`, opening one (`newCase`, with its sealed
    /// snapshot) when there is none. Nil when they reported it already; else the case and its reporters.
    func report(_ reported: Reported, by reporter: UUID, reason: MarketplaceChat.ReportReason, details: String, newCase: UUID = UUID(),
                on connection: PostgresConnection) async throws -> (case: UUID, reporters: Int)? {
        let now = database.now()
        try await connection.query(
            """
            INSERT INTO moderation_cases (id, subject_kind, subject_id, account_id, university_id, opened_at)
            VALUES (\(newCase), \(reported.kind.rawValue), \(reported.id), \(reported.account), \(reported.university), \(now))
            ON CONFLICT (subject_kind, subject_id) WHERE open DO NOTHING
            """,
            logger: database.logger)
        let rows = try await connection.query(
            "SELECT id, snapshot IS NULL FROM moderation_cases WHERE subject_kind = \(reported.kind.rawValue) AND subject_id = \(reported.id) AND open FOR UPDATE",
            logger: database.logger)
        guard let (id, new) = try await rows.decode((UUID, Bool).self).first(where: { _ in true }) else { throw OperationError(.unavailable, "try again") }
        if new {
            let key = try await caseKey(id, create: true, on: connection)
            let box = try Seal.seal(Data(try EnvelopeCodec().encode(reported.snapshot)), key: key, context: Self.context(id))
            try await connection.query("UPDATE moderation_cases SET snapshot = \(box) WHERE id = \(id)", logger: database.logger)
        }
        let added = try await connection.query(
            """
            INSERT INTO moderation_reports (case_id, reporter, reason, details, created_at) VALUES (\(id), \(reporter), \(reason.rawValue), \(details), \(now))
            ON CONFLICT DO NOTHING RETURNING 1
            """,
            logger: database.logger)
        guard try await added.decode(Int.self).first(where: { _ in true }) != nil else { return nil }
        let counted = try await connection.query(
            "UPDATE moderation_cases SET reporters = reporters + 1 WHERE id = \(id) RETURNING reporters", logger: database.logger)
        return (id, try await counted.decode(Int.self).first { _ in true } ?? 1)
    }

    /// Hides what case `id` is about until it is decided: a listing for sale or reserved leaves the
    /// network's sight (its state kept on the case), an account's listings too.
    func hide(_ id: UUID, _ reported: Reported, on connection: PostgresConnection) async throws {
        var state = "hidden"
        if reported.kind == .listing {
            let rows = try await connection.query(
                """
                WITH old AS (SELECT id, state FROM listings WHERE id = \(reported.id) AND state IN ('active', 'reserved') FOR UPDATE)
                UPDATE listings l SET state = 'hidden', version = l.version + 1 FROM old WHERE l.id = old.id RETURNING old.state
                """,
                logger: database.logger)
            guard let before = try await rows.decode(String.self).first(where: { _ in true }) else { return }
            state = before
        }
        guard reported.kind != .message else { return }
        try await connection.query(
            "UPDATE moderation_cases SET hidden_state = \(state) WHERE id = \(id) AND hidden_state IS NULL", logger: database.logger)
    }

    // MARK: - Cases

    struct Case: Sendable {
        let id: UUID
        let kind: Subject
        let subject: UUID
        let account: UUID?
        let hiddenState: String?
        let open: Bool
        var view: MarketplaceChat.ModerationCase
    }

    private static let caseColumns = """
        c.id, c.number, c.subject_kind, c.subject_id, c.account_id, COALESCE(t.username, ch.username), c.university_id, c.reporters, c.hidden_state,
        c.open, c.opened_at
        FROM moderation_cases c LEFT JOIN traders t ON t.account_id = c.account_id LEFT JOIN chatters ch ON ch.account_id = c.account_id
        """

    private func cases(_ condition: PostgresQuery, order: String, on connection: PostgresConnection) async throws -> [Case] {
        var query = PostgresQuery.select(Self.caseColumns, where: condition)
        query.sql += order
        let rows = try await connection.query(query, logger: database.logger)
        var found: [Case] = []
        for try await (id, number, kind, subject, account, username, university, reporters, hidden, open, opened)
            in rows.decode((UUID, Int64, String, UUID, UUID?, String?, String?, Int, String?, Bool, Date).self) {
            let kind = Subject(rawValue: kind) ?? .account
            found.append(Case(
                id: id, kind: kind, subject: subject, account: account, hiddenState: hidden, open: open,
                view: .init(
                    id: ListingStore.text(id), number: number, subject: kind, subjectId: ListingStore.text(subject),
                    account: Self.participant(account, username), university: university, reporters: reporters, hidden: open && hidden != nil,
                    open: open, openedAt: opened)))
        }
        return found
    }

    static func participant(_ account: UUID?, _ username: String?) -> MarketplaceChat.Participant {
        guard let account else { return .deleted }
        return .init(id: ListingStore.text(account), username: username ?? "member")
    }

    /// Open cases oldest first after case number `after`, or closed ones latest first below it: a
    /// place in the list's own order.
    func queue(closed: Bool, after: Int64?, limit: Int, on connection: PostgresConnection) async throws -> [MarketplaceChat.ModerationCase] {
        let found = closed
            ? try await cases("NOT c.open AND (\(after)::bigint IS NULL OR c.number < \(after))", order: " ORDER BY c.number DESC LIMIT \(limit)", on: connection)
            : try await cases("c.open AND c.number > \(after ?? 0)", order: " ORDER BY c.number LIMIT \(limit)", on: connection)
        return found.map(\.view)
    }

    /// Case `id` with its reports, its snapshot while open and its decision once closed.
    func `case`(_ id: UUID, locking: Bool = false, on connection: PostgresConnection) async throws -> Case? {
        guard var found = try await cases("c.id = \(id)", order: locking ? " FOR UPDATE OF c" : "", on: connection).first else { return nil }
        let reports = try await connection.query(
            "SELECT reason, details, created_at FROM moderation_reports WHERE case_id = \(id) ORDER BY created_at DESC", logger: database.logger)
        found.view.reports = try await reports.decode((String, String, Date).self).reduce(into: []) { list, row in
            list.append(.init(reason: MarketplaceChat.ReportReason(rawValue: row.0) ?? .other, details: row.1, createdAt: row.2))
        }
        let boxes = try await connection.query("SELECT snapshot FROM moderation_cases WHERE id = \(id)", logger: database.logger)
        if let box = try await boxes.decode(Data?.self).first(where: { _ in true }) ?? nil,
           let key = try await database.accountKey(id, create: false, ring: keys, on: connection) {
            found.view.snapshot = try EnvelopeCodec().decode(MarketplaceChat.Snapshot.self, from: Array(try Seal.open(box, key: key, context: Self.context(id))))
        }
        found.view.decision = try await decisions("d.case_id = \(id) AND d.appeal_of IS NULL", order: "", on: connection).first
        return found
    }

    /// Closes case `id`: its snapshot and the key that sealed it go.
    func close(_ id: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            "UPDATE moderation_cases SET open = false, closed_at = \(database.now()), snapshot = NULL WHERE id = \(id)", logger: database.logger)
        try await database.forgetAccountKey(id, on: connection)
    }

    private func caseKey(_ id: UUID, create: Bool, on connection: PostgresConnection) async throws -> SymmetricKey {
        guard let key = try await database.accountKey(id, create: create, ring: keys, on: connection) else {
            throw OperationError(.unavailable, "a case's key was not made; try again")
        }
        return key
    }

    private static func context(_ id: UUID) -> String { "case/\(ListingStore.text(id))" }

    // MARK: - Decisions

    /// Who decides, as their token names them.
    struct Moderator: Sendable {
        let account: UUID
        let username: String
    }

    /// Enters a decision in the log.
    func record(_ action: Action, id: UUID = UUID(), case caseID: UUID?, appealOf: UUID? = nil, account: UUID?, by moderator: Moderator, note: String,
                previousState: String? = nil, suspendedUntil: Date? = nil, on connection: PostgresConnection) async throws -> MarketplaceChat.ModerationDecision {
        try await connection.query(
            """
            INSERT INTO moderation_decisions (id, action, case_id, appeal_of, account_id, account_username, moderator_id, moderator_username, note,
                                              previous_state, suspended_until, decided_at)
            SELECT \(id), \(action.rawValue), \(caseID), \(appealOf), \(account),
                   COALESCE((SELECT username FROM traders WHERE account_id = \(account)), (SELECT username FROM chatters WHERE account_id = \(account)),
                            \(account == nil ? MarketplaceChat.Participant.deleted.username : "member")),
                   \(moderator.account), \(moderator.username), \(note), \(previousState), \(suspendedUntil), \(database.now())
            """,
            logger: database.logger)
        guard let decision = try await decisions("d.id = \(id)", order: "", on: connection).first else { throw OperationError(.unavailable, "try again") }
        return decision
    }

    func decisions(_ condition: PostgresQuery, order: String, on connection: PostgresConnection) async throws -> [MarketplaceChat.ModerationDecision] {
        var query = PostgresQuery.select(
            """
            d.id, d.number, d.action, d.case_id, d.appeal_of, d.account_id, d.account_username, d.moderator_id, d.moderator_username, d.note,
            d.suspended_until, d.decided_at FROM moderation_decisions d
            """,
            where: condition)
        query.sql += order
        var found: [MarketplaceChat.ModerationDecision] = []
        for try await postgresRow in try await connection.query(query, logger: database.logger) {
            let row = PostgresRandomAccessRow(postgresRow)
            func cell<T: PostgresDecodable>(_ index: Int, _: T.Type) throws -> T { try row[index].decode(T.self) }
            found.append(.init(
                id: ListingStore.text(try cell(0, UUID.self)), number: try cell(1, Int64.self), action: Action(rawValue: try cell(2, String.self)) ?? .dismiss,
                caseId: try cell(3, UUID?.self).map(ListingStore.text), appealOf: try cell(4, UUID?.self).map(ListingStore.text),
                account: Self.participant(try cell(5, UUID?.self), try cell(6, String.self)),
                moderator: Self.participant(try cell(7, UUID?.self), try cell(8, String.self)), note: try cell(9, String.self),
                suspendedUntil: try cell(10, Date?.self), decidedAt: try cell(11, Date.self)))
        }
        return found
    }

    /// The audit log, the latest first.
    func log(before: Int64?, limit: Int, on connection: PostgresConnection) async throws -> [MarketplaceChat.ModerationDecision] {
        try await decisions("\(before)::bigint IS NULL OR d.number < \(before)", order: " ORDER BY d.number DESC LIMIT \(limit)", on: connection)
    }

    /// Suspends `account` from the marketplace under `decision` until `until` (nil: until lifted).
    func suspend(_ account: UUID, decision: UUID, until: Date?, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO suspensions (account_id, decision_id, until) VALUES (\(account), \(decision), \(until))
            ON CONFLICT (account_id) DO UPDATE SET decision_id = excluded.decision_id, until = excluded.until
            """,
            logger: database.logger)
    }

    /// Ends `account`'s suspension (only the one `decision` made, when given); whether one was in force.
    func lift(_ account: UUID, decision: UUID? = nil, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            DELETE FROM suspensions WHERE account_id = \(account) AND (\(decision)::uuid IS NULL OR decision_id = \(decision))
              AND (until IS NULL OR until > \(database.now())) RETURNING 1
            """,
            logger: database.logger)
        return try await rows.decode(Int.self).first { _ in true } != nil
    }

    /// Puts a listing hidden or removed by moderation back in `state`.
    func restore(listing: UUID, to state: String, from states: [String], on connection: PostgresConnection) async throws {
        try await connection.query(
            "UPDATE listings SET state = \(state), version = version + 1 WHERE id = \(listing) AND state = ANY(\(states))", logger: database.logger)
    }

    /// Removes a listing; the state it had (before any hiding) for an appeal that undoes it.
    func remove(listing: UUID, hiddenState: String?, on connection: PostgresConnection) async throws -> String? {
        let rows = try await connection.query(
            """
            WITH old AS (SELECT id, state FROM listings WHERE id = \(listing) AND state <> 'removed' FOR UPDATE)
            UPDATE listings l SET state = 'removed', version = l.version + 1 FROM old WHERE l.id = old.id RETURNING old.state
            """,
            logger: database.logger)
        guard let state = try await rows.decode(String.self).first(where: { _ in true }) else { return nil }
        return state == "hidden" ? hiddenState ?? state : state
    }

    /// Deletes message `id` for both sides; its conversation, members' accounts and picture (for the
    /// caller to delete: `MessageStore.deleteImages`) when it was there.
    func remove(message id: UUID, on connection: PostgresConnection) async throws -> (conversation: UUID, members: [UUID], picture: UUID?)? {
        let rows = try await connection.query(
            """
            UPDATE messages m SET body = NULL, flagged = false, media_id = NULL, deleted_at = COALESCE(m.deleted_at, \(database.now()))
            FROM messages old
            WHERE m.id = \(id) AND old.conversation_id = m.conversation_id AND old.seq = m.seq
            RETURNING m.conversation_id,
                ARRAY(SELECT account_id FROM conversation_members WHERE conversation_id = m.conversation_id AND account_id IS NOT NULL), old.media_id
            """,
            logger: database.logger)
        return try await rows.decode((UUID, [UUID], UUID?).self).first { _ in true }.map { (conversation: $0.0, members: $0.1, picture: $0.2) }
    }
}
