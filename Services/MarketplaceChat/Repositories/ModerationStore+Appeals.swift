import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// Appeals of decisions, what an account is told of them, and erasure.
extension ModerationStore {
    // MARK: - Appeals

    struct AppealRow: Sendable {
        let decision: MarketplaceChat.ModerationDecision
        let decisionID: UUID
        let account: UUID
        let caseID: UUID?
        let previousState: String?
        let state: MarketplaceChat.AppealState
    }

    /// Appeals `account` of `decision`; false when they appealed it already.
    func appeal(_ decision: UUID, by account: UUID, text: String, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            INSERT INTO appeals (decision_id, account_id, text, created_at) VALUES (\(decision), \(account), \(text), \(database.now()))
            ON CONFLICT DO NOTHING RETURNING 1
            """,
            logger: database.logger)
        return try await rows.decode(Int.self).first { _ in true } != nil
    }

    /// The open appeals, the oldest first.
    func openAppeals(after: Int64?, limit: Int, on connection: PostgresConnection) async throws -> [MarketplaceChat.Appeal] {
        let rows = try await connection.query(
            """
            SELECT a.decision_id, a.number, a.text, a.created_at FROM appeals a
            WHERE a.state = 'open' AND a.number > \(after ?? 0) ORDER BY a.number LIMIT \(limit)
            """,
            logger: database.logger)
        let found = try await rows.decode((UUID, Int64, String, Date).self).reduce(into: []) { $0.append($1) }
        let decisions = try await decisions("d.id = ANY(\(found.map(\.0)))", order: "", on: connection)
        return found.compactMap { row in
            decisions.first { $0.id == ListingStore.text(row.0) }.map { .init(decision: $0, number: row.1, text: row.2, state: .open, createdAt: row.3) }
        }
    }

    /// The appeal of `decision`, its row locked.
    func appealOf(_ decision: UUID, on connection: PostgresConnection) async throws -> AppealRow? {
        let rows = try await connection.query(
            """
            SELECT a.account_id, a.state, d.case_id, d.previous_state FROM appeals a JOIN moderation_decisions d ON d.id = a.decision_id
            WHERE a.decision_id = \(decision) FOR UPDATE OF a
            """,
            logger: database.logger)
        guard let (account, state, caseID, previous) = try await rows.decode((UUID, String, UUID?, String?).self).first(where: { _ in true }),
              let view = try await decisions("d.id = \(decision)", order: "", on: connection).first
        else { return nil }
        return AppealRow(decision: view, decisionID: decision, account: account, caseID: caseID, previousState: previous,
                         state: MarketplaceChat.AppealState(rawValue: state) ?? .open)
    }

    func answer(_ decision: UUID, _ state: MarketplaceChat.AppealState, on connection: PostgresConnection) async throws {
        try await connection.query(
            "UPDATE appeals SET state = \(state.rawValue), answered_at = \(database.now()) WHERE decision_id = \(decision)", logger: database.logger)
    }

    /// What moderation decided about `account`, the latest 100 first (or `decision` alone), as they see it.
    func notices(of account: UUID, only decision: UUID? = nil, on connection: PostgresConnection) async throws -> [MarketplaceChat.Notice] {
        let now = database.now()
        let rows = try await connection.query(
            """
            SELECT d.id, d.action, c.subject_kind, l.title, d.note, d.suspended_until, d.decided_at, a.state
            FROM moderation_decisions d LEFT JOIN moderation_cases c ON c.id = d.case_id
            LEFT JOIN listings l ON c.subject_kind = 'listing' AND l.id = c.subject_id
            LEFT JOIN appeals a ON a.decision_id = d.id
            WHERE d.account_id = \(account) AND d.action <> 'dismiss' AND (\(decision)::uuid IS NULL OR d.id = \(decision))
            ORDER BY d.number DESC LIMIT 100
            """,
            logger: database.logger)
        return try await rows.decode((UUID, String, String?, String?, String, Date?, Date, String?).self).reduce(into: []) { list, row in
            let action = Action(rawValue: row.1) ?? .warn
            list.append(.init(
                decisionId: ListingStore.text(row.0), action: action, subject: row.2.flatMap(Subject.init(rawValue:)), listingTitle: row.3, note: row.4,
                suspendedUntil: row.5, decidedAt: row.6, appeal: row.7.flatMap(MarketplaceChat.AppealState.init(rawValue:)),
                appealable: Self.appealable(action, appealed: row.7 != nil, decidedAt: row.6, now: now)))
        }
    }

    static func appealable(_ action: Action, appealed: Bool, decidedAt: Date, now: Date) -> Bool {
        [.remove, .warn, .suspend].contains(action) && !appealed && now < decidedAt.adding(MarketplaceChat.Bounds.appealWindow)
    }

    // MARK: - Erasure

    /// Forgets `account`: its reports, appeals and suspension go; cases about it close with their
    /// snapshots; the log keeps its decisions under "a deleted user".
    func erase(_ account: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM moderation_reports WHERE reporter = \(account)", logger: database.logger)
        try await connection.query("DELETE FROM appeals WHERE account_id = \(account)", logger: database.logger)
        try await connection.query("DELETE FROM suspensions WHERE account_id = \(account)", logger: database.logger)
        let open = try await connection.query(
            "SELECT id FROM moderation_cases WHERE account_id = \(account) AND open", logger: database.logger)
        for id in try await open.decode(UUID.self).reduce(into: [], { $0.append($1) }) { try await close(id, on: connection) }
        try await connection.query("UPDATE moderation_cases SET account_id = NULL WHERE account_id = \(account)", logger: database.logger)
        let deleted = MarketplaceChat.Participant.deleted.username
        try await connection.query(
            "UPDATE moderation_decisions SET account_id = NULL, account_username = \(deleted) WHERE account_id = \(account)", logger: database.logger)
        try await connection.query(
            "UPDATE moderation_decisions SET moderator_id = NULL, moderator_username = \(deleted) WHERE moderator_id = \(account)", logger: database.logger)
    }
}
