import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// `household.chores.*` and `household.away.set.v1`: chores whose turns rotate over chosen members
/// (passing over those away), done on time, late or skipped; a reminder before each turn is due
/// (the household's `reminderLeadMinutes`) through a notifications schedule that moves with it.
struct ChoreHandlers: Sendable {
    let database: Database
    let chores: ChoreStore
    let households: HouseholdStore
    let photos: PhotoStore
    let access: HouseholdAccess
    let notifier: HouseholdNotifier

    static let notFound = OperationError(
        .notFound, "data.choreId: the household has no such chore", fields: [.init(field: "data.choreId", message: "is not one of the household's chores")])

    /// The checked words and schedule of a chore (nil: unchanged).
    struct Checked: Sendable {
        var title: String?
        var description: String?
        var weekdays: [Int]?
        var timeZone: String?
    }

    // MARK: Chores

    @Sendable
    func prepareCreate(_ request: Household.Chores.Create.Request, _ context: RequestContext) async throws
        -> (checked: Checked, request: Household.Chores.Create.Request)
    {
        var validation = Validation()
        let checked = Self.check(
            title: request.title, description: request.description, weekdays: request.weekdays, timeZone: request.timeZone ?? "UTC",
            frequency: request.frequency, validation: &validation)
        try validation.finish()
        return (checked, request)
    }

    @Sendable
    func create(_ prepared: (checked: Checked, request: Household.Chores.Create.Request), _ context: RequestContext,
                on connection: PostgresConnection) async throws -> Household.Chore {
        let (checked, request) = prepared
        try checkDue(request.dueAt)
        let member = try await access.member(of: request.householdId, context, on: connection)
        let availability = try await chores.availability(of: member.household, on: connection)
        let rotation = try Self.rotation(request.rotation, default: [member.member], among: Set(availability.accounts.keys).union([member.member]))
        var values = ChoreStore.Values(
            title: checked.title!, description: checked.description, frequency: request.frequency, weekdays: checked.weekdays ?? [],
            timeZone: checked.timeZone!, dueAt: request.dueAt, anchor: request.dueAt, rotation: rotation, turn: 0)
        values.turn = Self.nextTurn(from: -1, in: rotation, eligible: availability.eligible)
        let id = try await chores.create(values, in: member.household, by: member.member, on: connection)
        guard let row = try await chores.chore(id, of: member.household, on: connection) else { throw Self.notFound }
        try await followUp(row, was: nil, by: member.member, on: connection)
        return row.view
    }

    @Sendable
    func list(_ request: Household.Reference, _ context: RequestContext) async throws -> Household.Chores.List.Response {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            return .init(chores: try await chores.list(of: member.household, on: connection).map(\.view))
        }
    }

    @Sendable
    func get(_ request: Household.Chores.Reference, _ context: RequestContext) async throws -> Household.Chore {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            return try await chore(request.choreId, of: member.household, on: connection).view
        }
    }

    @Sendable
    func update(_ request: Household.Chores.Update.Request, _ context: RequestContext) async throws -> Household.Chore {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let old = try await chore(request.choreId, of: member.household, locking: true, on: connection)
            var validation = Validation()
            let frequency = request.frequency ?? old.values.frequency
            let checked = Self.check(
                title: request.title, description: request.description, weekdays: request.weekdays ?? (frequency == .weekly ? old.values.weekdays : nil),
                timeZone: request.timeZone, frequency: frequency, validation: &validation)
            try validation.finish()
            guard old.view.version == request.version else {
                throw OperationError.staleVersion(of: old.view, read: request.version, current: old.view.version, "chore")
            }
            let availability = try await chores.availability(of: member.household, on: connection)
            var values = old.values
            values.title = checked.title ?? values.title
            if request.description != nil { values.description = checked.description }
            values.frequency = frequency
            values.weekdays = frequency == .weekly ? checked.weekdays ?? values.weekdays : []
            values.timeZone = checked.timeZone ?? values.timeZone
            if let due = request.dueAt, old.doneAt == nil {
                try checkDue(due)
                (values.dueAt, values.anchor) = (due, due)
            }
            if let raw = request.rotation {
                let rotation = try Self.rotation(raw, default: [], among: Set(availability.accounts.keys).union(old.values.rotation))
                // The same rotation again keeps whose turn it is.
                if rotation != values.rotation {
                    values.rotation = rotation
                    values.turn = Self.nextTurn(from: -1, in: rotation, eligible: availability.eligible)
                }
            }
            _ = try await chores.update(old.id, version: request.version, to: values, on: connection)
            let row = try await chore(request.choreId, of: member.household, on: connection)
            try await followUp(row, was: old.assignee, by: member.member, on: connection)
            return row.view
        }
    }

    @Sendable
    func delete(_ request: Household.Chores.Reference, _ context: RequestContext) async throws -> Household.Chores.Delete.Response {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let row = try await chore(request.choreId, of: member.household, locking: true, on: connection)
            try await cancelReminder(of: row.id, on: connection)
            try await photos.deleteAttached(to: .turn, try await chores.turnIDs(of: row.id, on: connection), on: connection)
            return .init(deleted: try await chores.delete(row.id, on: connection))
        }
    }

    // MARK: Turns

    /// Outside the transaction: the comment, checked.
    @Sendable
    func prepareComplete(_ request: Household.Chores.Complete.Request, _ context: RequestContext) async throws
        -> (comment: String?, request: Household.Chores.Complete.Request)
    {
        var validation = Validation()
        let comment = validation.checkText(request.comment, "data.comment", Household.Bounds.note, newlines: true)
        for (raw, field) in [(request.beforePhotoId, "data.beforePhotoId"), (request.afterPhotoId, "data.afterPhotoId")] where raw != nil {
            validation.check(raw.flatMap(UUID.init(uuidString:)) != nil, field, "must be a photo id")
        }
        validation.check(request.beforePhotoId == nil || request.beforePhotoId != request.afterPhotoId, "data.afterPhotoId", "is the before photo")
        try validation.finish()
        return (comment, request)
    }

    @Sendable
    func complete(_ prepared: (comment: String?, request: Household.Chores.Complete.Request), _ context: RequestContext,
                  on connection: PostgresConnection) async throws -> Household.ChoreTurn {
        let member = try await access.member(of: prepared.request.householdId, context, on: connection)
        let row = try await chore(prepared.request.choreId, of: member.household, locking: true, on: connection)
        guard let due = row.values.dueAt else { throw OperationError(.conflict, "the chore is done: it was due once") }
        if let read = prepared.request.dueAt, abs(read.timeIntervalSince(due)) >= 0.001 {
            throw OperationError.conflict(
                field: "data.dueAt", "that turn is over; the chore is due at \(RFC3339.string(from: due)) now", "is not the current turn's", current: row.view)
        }
        let (before, after) = (prepared.request.beforePhotoId.flatMap(UUID.init(uuidString:)), prepared.request.afterPhotoId.flatMap(UUID.init(uuidString:)))
        // The photos are checked and named first: the turn's row refers to them.
        let turnID = UUID()
        for (photo, field) in [(before, "data.beforePhotoId"), (after, "data.afterPhotoId")] {
            if let photo { try await photos.attach([photo], to: .turn, turnID, in: member.household, field: field, on: connection) }
        }
        let turn = try await chores.recordTurn(
            of: row, outcome: database.now() <= due ? .onTime : .late, doneBy: member.member, comment: prepared.comment, before: before, after: after,
            id: turnID, on: connection)
        let next = try await advance(row, on: connection)
        try await notifier.tell(
            .choreDone, .init(household: member.household, resource: "chore", id: row.id), except: member.member,
            title: "Done: \(row.values.title)", body: turn.outcome == .onTime ? "Done on time." : "Done, late.", on: connection)
        try await followUp(next, was: row.assignee, by: member.member, on: connection)
        return turn
    }

    @Sendable
    func turns(_ request: Household.Chores.Turns.Request, _ context: RequestContext) async throws -> Household.Chores.Turns.Response {
        let limit = try request.page.checked()
        return try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let row = try await chore(request.choreId, of: member.household, on: connection)
            let page = try await chores.turns(of: row.id, limit: limit, before: request.after, on: connection)
            return .init(turns: page.map(\.turn), nextAfter: page.count == limit ? page.last?.seq : nil)
        }
    }

    @Sendable
    func prepareComment(_ request: Household.Chores.Comment.Request, _ context: RequestContext) async throws
        -> (text: String, request: Household.Chores.Comment.Request)
    {
        (try Validation.commentText(request.text), request)
    }

    @Sendable
    func comment(_ prepared: (text: String, request: Household.Chores.Comment.Request), _ context: RequestContext,
                 on connection: PostgresConnection) async throws -> Household.ChoreComment {
        let member = try await access.member(of: prepared.request.householdId, context, on: connection)
        let row = try await chore(prepared.request.choreId, of: member.household, on: connection)
        return try await chores.addComment(to: row.id, by: member.member, text: prepared.text, on: connection)
    }

    @Sendable
    func comments(_ request: Household.Chores.Turns.Request, _ context: RequestContext) async throws -> Household.Chores.Comments.Response {
        let limit = try request.page.checked()
        return try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let row = try await chore(request.choreId, of: member.household, on: connection)
            let page = try await chores.comments(of: row.id, limit: limit, before: request.after, on: connection)
            return .init(comments: page.map(\.comment), nextAfter: page.count == limit ? page.last?.seq : nil)
        }
    }

    @Sendable
    func stats(_ request: Household.Chores.Stats.Request, _ context: RequestContext) async throws -> Household.Chores.Stats.Response {
        var validation = Validation()
        let from = request.from.flatMap(CalendarDay.date)
        validation.check(request.from == nil || from != nil, "data.from", "must be a day: YYYY-MM-DD")
        let choreID = request.choreId.flatMap(UUID.init(uuidString:))
        validation.check(request.choreId == nil || choreID != nil, "data.choreId", "must be a chore id")
        try validation.finish()
        let periods = request.period == .week ? 7 * 12 : 366
        let start = from ?? CalendarDay.calendar.date(byAdding: .day, value: -periods, to: database.now())!
        return try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            return .init(stats: try await chores.stats(of: member.household, period: request.period.rawValue, from: start, chore: choreID, on: connection))
        }
    }

    @Sendable
    func setAway(_ request: Household.Away.Set.Request, _ context: RequestContext) async throws -> Household.View {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, locking: true, on: connection)
            try await chores.setAway(member.member, request.away, on: connection)
            // Going away passes the turns that are theirs now to the next in each rotation.
            if request.away {
                let availability = try await chores.availability(of: member.household, on: connection)
                for listed in try await chores.list(of: member.household, on: connection) where listed.assignee == member.member {
                    // Read again under its lock: a turn done at the same moment is not undone.
                    guard let row = try await chores.chore(listed.id, of: member.household, locking: true, on: connection),
                          row.assignee == member.member
                    else { continue }
                    var values = row.values
                    values.turn = Self.nextTurn(from: values.turn, in: values.rotation, eligible: availability.eligible)
                    try await chores.update(row.id, version: nil, to: values, on: connection)
                    guard let passed = try await chores.chore(row.id, of: member.household, on: connection) else { continue }
                    try await followUp(passed, was: row.assignee, by: member.member, on: connection)
                }
            }
            return try await households.view(member, on: connection)
        }
    }

    // MARK: The job

    /// Turns whose next due time came with nobody having done them are skipped, and the rotation
    /// moves on (a round of at most 100 chores, in the job's transaction); returns how many turns.
    func skipMissedTurns(on connection: PostgresConnection) async throws -> Int {
        var skipped = 0
        for (id, household) in try await chores.pastDue(at: database.now(), limit: 100, on: connection) {
            guard var row = try await chores.chore(id, of: household, locking: true, on: connection) else { continue }
            let first = row
            // A chore left alone for long is caught up turn by turn, at most a year of daily turns a round.
            for _ in 0..<400 {
                guard let due = row.values.dueAt, let calendar = ChoreSchedule.calendar(row.values.timeZone),
                      let next = ChoreSchedule.next(after: due, row.values.frequency, weekdays: row.values.weekdays, anchor: row.values.anchor, in: calendar),
                      next <= database.now()
                else { break }
                _ = try await chores.recordTurn(of: row, outcome: .skipped, doneBy: nil, comment: nil, on: connection)
                row = try await advance(row, on: connection)
                skipped += 1
            }
            if row.values != first.values { try await followUp(row, was: first.assignee, by: nil, on: connection) }
        }
        return skipped
    }

    // MARK: Steps

    /// A due time from a week ago to five years on: the skip job would otherwise catch up turns
    /// without end.
    private func checkDue(_ due: Date) throws(OperationError) {
        let now = database.now()
        guard due >= now.adding(.seconds(-7 * 86_400)), due <= now.adding(.seconds(5 * 366 * 86_400)) else {
            throw OperationError.invalid(field: "data.dueAt", "must be from a week ago to five years on")
        }
    }

    private func chore(_ id: String, of household: UUID, locking: Bool = false, on connection: PostgresConnection) async throws -> ChoreStore.Row {
        guard let id = UUID(uuidString: id), let row = try await chores.chore(id, of: household, locking: locking, on: connection) else { throw Self.notFound }
        return row
    }

    /// The chore's next turn: its next due time (none for a done `once` chore) and the next member.
    private func advance(_ row: ChoreStore.Row, on connection: PostgresConnection) async throws -> ChoreStore.Row {
        let availability = try await chores.availability(of: row.household, on: connection)
        var values = row.values
        let calendar = ChoreSchedule.calendar(values.timeZone) ?? CalendarDay.calendar
        values.dueAt = values.dueAt.flatMap { ChoreSchedule.next(after: $0, values.frequency, weekdays: values.weekdays, anchor: values.anchor, in: calendar) }
        values.turn = Self.nextTurn(from: values.turn, in: values.rotation, eligible: availability.eligible)
        try await chores.update(row.id, version: nil, to: values, doneAt: values.dueAt == nil ? database.now() : nil, on: connection)
        guard let next = try await chores.chore(row.id, of: row.household, on: connection) else { throw Self.notFound }
        return next
    }

    /// After a chore's turn or schedule changed: its reminder moves, and a new assignee hears of it.
    private func followUp(_ row: ChoreStore.Row, was previous: UUID?, by actor: UUID?, on connection: PostgresConnection) async throws {
        try await scheduleReminder(of: row, on: connection)
        if let assignee = row.assignee, assignee != previous, assignee != actor {
            try await notifier.tell(
                .choreAssigned, .init(household: row.household, resource: "chore", id: row.id), except: nil, only: [assignee],
                title: "Your turn: \(row.values.title)",
                body: row.values.dueAt.map { "Due \(ChoreSchedule.localMinute($0, ChoreSchedule.calendar(row.values.timeZone) ?? CalendarDay.calendar))." }
                    ?? "It is yours next.",
                on: connection)
        }
    }

    /// A reminder to the assignee `reminderLeadMinutes` before the turn is due; none when it is done,
    /// the assignee has no account any more, or that time has passed.
    private func scheduleReminder(of row: ChoreStore.Row, on connection: PostgresConnection) async throws {
        let availability = try await chores.availability(of: row.household, on: connection)
        let lead = try await households.reminderLead(of: row.household, on: connection)
        guard let due = row.values.dueAt, let assignee = row.assignee, let account = availability.accounts[assignee],
              let calendar = ChoreSchedule.calendar(row.values.timeZone)
        else { return try await cancelReminder(of: row.id, on: connection) }
        let at = due.adding(.seconds(-60 * lead))
        guard at > database.now() else { return try await cancelReminder(of: row.id, on: connection) }
        let event = Notifications.EventType.choreDue
        try await database.enqueue(Notifications.Schedule.Set.self, .init(
            key: Self.reminderKey(row.id), recipient: HouseholdStore.text(account), start: ChoreSchedule.localMinute(at, calendar),
            timeZone: row.values.timeZone,
            content: .init(
                app: event.app, eventType: event.name, category: event.category,
                alert: .init(title: "Due soon: \(row.values.title)", body: "Your turn; it is due in \(lead) minutes."),
                data: ["householdId": HouseholdStore.text(row.household), "resource": "chore", "id": HouseholdStore.text(row.id)],
                collapseKey: Self.reminderKey(row.id)),
            revision: revision()), on: connection)
    }

    private func cancelReminder(of chore: UUID, on connection: PostgresConnection) async throws {
        try await database.enqueue(Notifications.Schedule.Cancel.self, .init(key: Self.reminderKey(chore), revision: revision()), on: connection)
    }

    /// Orders one chore's reminder changes, which the outbox may deliver out of order.
    private func revision() -> Int64 { Int64((database.now().timeIntervalSince1970 * 1_000_000).rounded()) }

    static func reminderKey(_ chore: UUID) -> String { "chore-\(HouseholdStore.text(chore))" }

    /// The index after `index` in `rotation` of the first eligible member; when nobody is, the next.
    static func nextTurn(from index: Int, in rotation: [UUID], eligible: Set<UUID>) -> Int {
        guard !rotation.isEmpty else { return 0 }
        for step in 1...rotation.count {
            let candidate = (index + step + rotation.count) % rotation.count
            if eligible.contains(rotation[candidate]) { return candidate }
        }
        return (index + 1 + rotation.count) % rotation.count
    }

    /// The rotation asked for, each a member among `allowed`, no one twice; `fallback` when absent.
    static func rotation(_ raw: [String]?, default fallback: [UUID], among allowed: Set<UUID>) throws(OperationError) -> [UUID] {
        guard let raw else { return fallback }
        var validation = Validation()
        var rotation: [UUID] = []
        for (index, text) in raw.enumerated() {
            if let member = UUID(uuidString: text), allowed.contains(member), !rotation.contains(member) {
                rotation.append(member)
            } else {
                validation.fail("data.rotation[\(index)]", "is not a member of the household, or is named twice")
            }
        }
        validation.check(!raw.isEmpty, "data.rotation", "must name at least one member")
        try validation.finish()
        return rotation
    }

    static func check(title: String?, description: String?, weekdays: [Int]?, timeZone: String?, frequency: Household.Frequency,
                      validation: inout Validation) -> Checked {
        var checked = Checked()
        if let title {
            checked.title = title.trimmingCharacters(in: .whitespaces)
            validation.checkName(checked.title!, "data.title")
        }
        checked.description = validation.checkText(description, "data.description", Household.Bounds.note, newlines: true)
        if let timeZone {
            validation.check(ChoreSchedule.calendar(timeZone) != nil, "data.timeZone", "must be an IANA time zone, such as Europe/Dublin")
            checked.timeZone = timeZone
        }
        if frequency == .weekly {
            let days = weekdays ?? []
            validation.check(!days.isEmpty && days.allSatisfy { (1...7).contains($0) }, "data.weekdays", "must name 1 (Monday) to 7 (Sunday) with weekly")
            checked.weekdays = Array(Set(days)).sorted()
        } else if let weekdays, !weekdays.isEmpty {
            validation.fail("data.weekdays", "goes only with weekly")
        }
        return checked
    }
}
