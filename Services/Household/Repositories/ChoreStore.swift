import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import PostgresNIO
import PostgresSupport

/// `household.chores`, their turns and comments.
struct ChoreStore: Sendable {
    let database: Database

    /// A chore as written.
    struct Values: Sendable, Equatable {
        var title: String
        var description: String?
        var frequency: Household.Frequency
        var weekdays: [Int]
        var timeZone: String
        var dueAt: Date?
        var anchor: Date
        var rotation: [UUID]
        var turn: Int

        /// The next turn's due time, when the current one is skipped if not done.
        var skipAt: Date? {
            guard let due = dueAt, let calendar = ChoreSchedule.calendar(timeZone) else { return nil }
            return ChoreSchedule.next(after: due, frequency, weekdays: weekdays, anchor: anchor, in: calendar)
        }
    }

    /// A chore as stored, with what the handlers decide on.
    struct Row: Sendable {
        let id: UUID
        let household: UUID
        let values: Values
        let doneAt: Date?
        let view: Household.Chore

        var assignee: UUID? { values.dueAt == nil || values.rotation.isEmpty ? nil : values.rotation[values.turn % values.rotation.count] }
    }

    /// Who of a household may take a turn: belongs now and is not away; and their account.
    struct Availability: Sendable {
        let eligible: Set<UUID>
        let accounts: [UUID: UUID]
    }

    func availability(of household: UUID, on connection: PostgresConnection) async throws -> Availability {
        var eligible: Set<UUID> = [], accounts: [UUID: UUID] = [:]
        let rows = try await connection.query(
            "SELECT id, account_id, away FROM members WHERE household_id = \(household) AND left_at IS NULL", logger: database.logger)
        for try await (member, account, away) in rows.decode((UUID, UUID?, Bool).self) {
            if !away { eligible.insert(member) }
            if let account { accounts[member] = account }
        }
        return Availability(eligible: eligible, accounts: accounts)
    }

    func create(_ values: Values, in household: UUID, by member: UUID, on connection: PostgresConnection) async throws -> UUID {
        let id = UUID(), now = database.now()
        try await connection.query(
            """
            INSERT INTO chores (id, household_id, title, description, frequency, weekdays, time_zone, anchor_at, due_at, skip_at, rotation, turn,
                                created_by, created_at, updated_at)
            VALUES (\(id), \(household), \(values.title), \(values.description), \(values.frequency.rawValue), \(values.weekdays), \(values.timeZone),
                    \(values.anchor), \(values.dueAt), \(values.skipAt), \(values.rotation), \(values.turn), \(member), \(now), \(now))
            """,
            logger: database.logger)
        return id
    }

    /// Writes the chore's values when it is at `version` (nil: whatever it is at); false when it moved on.
    @discardableResult
    func update(_ id: UUID, version: Int?, to values: Values, doneAt: Date? = nil, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query(
            """
            UPDATE chores SET title = \(values.title), description = \(values.description), frequency = \(values.frequency.rawValue),
                weekdays = \(values.weekdays), time_zone = \(values.timeZone), anchor_at = \(values.anchor), due_at = \(values.dueAt),
                skip_at = \(values.skipAt),
                rotation = \(values.rotation), turn = \(values.turn), done_at = coalesce(done_at, \(doneAt)), updated_at = \(database.now()),
                version = version + 1
            WHERE id = \(id) AND (\(version)::int IS NULL OR version = \(version))
            RETURNING 1
            """,
            logger: database.logger
        ).collect().count == 1
    }

    func delete(_ id: UUID, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query("DELETE FROM chores WHERE id = \(id) RETURNING 1", logger: database.logger).collect().count == 1
    }

    /// The ids of the chore's turns (whose photos go with it).
    func turnIDs(of chore: UUID, on connection: PostgresConnection) async throws -> [UUID] {
        try await connection.query("SELECT id FROM chore_turns WHERE chore_id = \(chore)", logger: database.logger)
            .decode(UUID.self).reduce(into: []) { $0.append($1) }
    }

    func chore(_ id: UUID, of household: UUID, locking: Bool = false, on connection: PostgresConnection) async throws -> Row? {
        try await rows("id = \(id) AND household_id = \(household)\(unescaped: locking ? " FOR UPDATE" : "")", on: connection).first
    }

    /// The household's chores, the soonest due first, done ones last.
    func list(of household: UUID, on connection: PostgresConnection) async throws -> [Row] {
        try await rows("household_id = \(household) ORDER BY due_at NULLS LAST, created_at", on: connection)
    }

    /// Chores whose next turn's due time came with the current turn not done, the longest waiting first.
    func pastDue(at now: Date, limit: Int, on connection: PostgresConnection) async throws -> [(id: UUID, household: UUID)] {
        try await connection.query(
            "SELECT id, household_id FROM chores WHERE skip_at <= \(now) ORDER BY skip_at LIMIT \(limit)", logger: database.logger
        ).decode((UUID, UUID).self).reduce(into: []) { $0.append((id: $1.0, household: $1.1)) }
    }

    /// Records how a turn ended; returns it.
    func recordTurn(of chore: Row, outcome: Household.ChoreTurn.Outcome, doneBy: UUID?, comment: String?, before: UUID? = nil, after: UUID? = nil,
                    id: UUID = UUID(), on connection: PostgresConnection) async throws -> Household.ChoreTurn {
        let doneAt = doneBy == nil ? nil : database.now()
        guard let due = chore.values.dueAt else { throw OperationError(.conflict, "the chore is done") }
        try await connection.query(
            """
            INSERT INTO chore_turns (id, chore_id, household_id, due_at, outcome, assignee, done_by, done_at, comment, before_photo, after_photo)
            VALUES (\(id), \(chore.id), \(chore.household), \(due), \(outcome.rawValue), \(chore.assignee), \(doneBy), \(doneAt), \(comment),
                    \(before), \(after))
            """,
            logger: database.logger)
        return Household.ChoreTurn(
            id: HouseholdStore.text(id), choreId: HouseholdStore.text(chore.id), dueAt: due, outcome: outcome, assignee: chore.assignee.map(HouseholdStore.text),
            doneBy: doneBy.map(HouseholdStore.text), doneAt: doneAt, comment: comment, beforePhotoId: before.map(HouseholdStore.text),
            afterPhotoId: after.map(HouseholdStore.text))
    }

    /// A chore's turns, the last due first.
    func turns(of chore: UUID, limit: Int, before: Int64?, on connection: PostgresConnection) async throws -> [(turn: Household.ChoreTurn, seq: Int64)] {
        let rows = try await connection.query(
            """
            SELECT id, due_at, outcome, assignee, done_by, done_at, comment, seq, before_photo, after_photo FROM chore_turns
            WHERE chore_id = \(chore) AND seq < \(before ?? Int64.max) ORDER BY seq DESC LIMIT \(limit)
            """,
            logger: database.logger)
        var turns: [(turn: Household.ChoreTurn, seq: Int64)] = []
        for try await row in rows {
            let cells = row.makeRandomAccess()
            turns.append((Household.ChoreTurn(
                id: HouseholdStore.text(try cells[0].decode(UUID.self)), choreId: HouseholdStore.text(chore), dueAt: try cells[1].decode(Date.self),
                outcome: Household.ChoreTurn.Outcome(rawValue: try cells[2].decode(String.self)) ?? .skipped,
                assignee: try cells[3].decode(UUID?.self).map(HouseholdStore.text), doneBy: try cells[4].decode(UUID?.self).map(HouseholdStore.text),
                doneAt: try cells[5].decode(Date?.self), comment: try cells[6].decode(String?.self),
                beforePhotoId: try cells[8].decode(UUID?.self).map(HouseholdStore.text), afterPhotoId: try cells[9].decode(UUID?.self).map(HouseholdStore.text)),
                try cells[7].decode(Int64.self)))
        }
        return turns
    }

    func addComment(to chore: UUID, by member: UUID, text: String, on connection: PostgresConnection) async throws -> Household.ChoreComment {
        let id = UUID(), now = database.now()
        try await connection.query(
            "INSERT INTO chore_comments (id, chore_id, member_id, at, text) VALUES (\(id), \(chore), \(member), \(now), \(text))", logger: database.logger)
        return Household.ChoreComment(id: HouseholdStore.text(id), memberId: HouseholdStore.text(member), at: now, text: text)
    }

    func comments(of chore: UUID, limit: Int, before: Int64?, on connection: PostgresConnection) async throws
        -> [(comment: Household.ChoreComment, seq: Int64)]
    {
        try await connection.query(
            """
            SELECT id, member_id, at, text, seq FROM chore_comments WHERE chore_id = \(chore) AND seq < \(before ?? Int64.max)
            ORDER BY seq DESC LIMIT \(limit)
            """,
            logger: database.logger
        ).decode((UUID, UUID, Date, String, Int64).self).reduce(into: []) { comments, row in
            comments.append((Household.ChoreComment(id: HouseholdStore.text(row.0), memberId: HouseholdStore.text(row.1), at: row.2, text: row.3), row.4))
        }
    }

    /// Each member's turns per `period` (`week` or `month`, UTC) from `from`: done ones count for who
    /// did them, skipped ones for whose turn it was.
    func stats(of household: UUID, period: String, from: Date, chore: UUID?, on connection: PostgresConnection) async throws -> [Household.ChoreStat] {
        try await connection.query(
            """
            SELECT to_char(date_trunc(\(period), due_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS period,
                   CASE WHEN outcome = 'skipped' THEN assignee ELSE done_by END AS member,
                   count(*) FILTER (WHERE outcome = 'on-time')::int, count(*) FILTER (WHERE outcome = 'late')::int,
                   count(*) FILTER (WHERE outcome = 'skipped')::int
            FROM chore_turns
            WHERE household_id = \(household) AND due_at >= \(from) AND (\(chore)::uuid IS NULL OR chore_id = \(chore))
              AND (CASE WHEN outcome = 'skipped' THEN assignee ELSE done_by END) IS NOT NULL
            GROUP BY 1, 2 ORDER BY 1, 2
            """,
            logger: database.logger
        ).decode((String, UUID, Int, Int, Int).self).reduce(into: []) { stats, row in
            stats.append(.init(period: row.0, memberId: HouseholdStore.text(row.1), onTime: row.2, late: row.3, skipped: row.4))
        }
    }

    /// Marks `member` away or back.
    func setAway(_ member: UUID, _ away: Bool, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE members SET away = \(away) WHERE id = \(member)", logger: database.logger)
    }

    private func rows(_ condition: PostgresQuery, on connection: PostgresConnection) async throws -> [Row] {
        let query = PostgresQuery.select(
            """
            id, household_id, title, description, frequency, weekdays, time_zone, anchor_at, due_at, rotation, turn, created_by, created_at,
            updated_at, done_at, version FROM chores
            """,
            where: condition)
        var rows: [Row] = []
        for try await row in try await connection.query(query, logger: database.logger) {
            let cells = row.makeRandomAccess()
            func cell<T: PostgresDecodable>(_ index: Int, _ type: T.Type = T.self) throws -> T { try cells[index].decode(T.self) }
            let id: UUID = try cell(0)
            let values = Values(
                title: try cell(2), description: try cell(3), frequency: Household.Frequency(rawValue: try cell(4, String.self)) ?? .once,
                weekdays: try cell(5), timeZone: try cell(6), dueAt: try cell(8), anchor: try cell(7), rotation: try cell(9), turn: try cell(10))
            let doneAt: Date? = try cell(14)
            var row = Row(id: id, household: try cell(1), values: values, doneAt: doneAt, view: Household.Chore(
                id: HouseholdStore.text(id), title: values.title, description: values.description, frequency: values.frequency,
                weekdays: values.frequency == .weekly ? values.weekdays : nil, timeZone: values.timeZone, dueAt: values.dueAt,
                rotation: values.rotation.map(HouseholdStore.text), assignee: nil, createdBy: HouseholdStore.text(try cell(11)), createdAt: try cell(12),
                updatedAt: try cell(13), doneAt: doneAt, version: try cell(15)))
            var view = row.view
            view.assignee = row.assignee.map(HouseholdStore.text)
            row = Row(id: row.id, household: row.household, values: row.values, doneAt: row.doneAt, view: view)
            rows.append(row)
        }
        return rows
    }
}
