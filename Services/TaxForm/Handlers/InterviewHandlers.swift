import Bus
import Contracts
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport
import TaxFormContract

/// `tax-form.interview.*`: a signed-in user's interviews, one per tax year, versioned. Every lookup
/// is by the caller's account, so nobody reaches another account's interview.
struct InterviewHandlers: Sendable {
    let database: Database
    let store: InterviewStore
    let engine: InterviewEngine
    let reminders: Reminders
    let now: @Sendable () -> Date

    @Sendable
    func get(_ request: TaxForm.InterviewReference, _ context: RequestContext) async throws -> TaxForm.Interview {
        let account = try Self.caller(context), year = try engine.checkedYear(request.taxYear)
        let (row, earlier) = try await database.transaction { connection in
            (try await store.find(account: account, year: year, on: connection), try await store.latest(account: account, before: year, on: connection))
        }
        var interview = view(row, year: year)
        if let earlier {
            let answers = row?.state.answers ?? [:]
            let offered = engine.carriedOver(year: year).filter { answers[$0] == nil && earlier.row.state.answers[$0] != nil }
            if !offered.isEmpty { interview.carryOver = .init(fromYear: earlier.year, questions: offered) }
        }
        return interview
    }

    @Sendable
    func answer(_ request: TaxForm.Interviews.Answer.Request, _ context: RequestContext) async throws -> TaxForm.Interview {
        let account = try Self.caller(context)
        var validation = Validation()
        let year = engine.checkedYear(request.taxYear, &validation)
        let (answers, issues) = engine.checked(request.answers ?? [:], year: year ?? request.taxYear, at: "data.answers")
        for issue in issues { validation.fail(issue.field, issue.message) }
        let known = Set(engine.script.questions.map(\.id))
        for (name, ids) in [("clear", request.clear), ("skip", request.skip), ("unskip", request.unskip)] {
            for (index, id) in (ids ?? []).enumerated() where !known.contains(id) { validation.fail("data.\(name)[\(index)]", "is not a question of the interview") }
        }
        try validation.finish()
        return try await change(account: account, year: year!, version: request.version, carryOver: request.carryOver == true) { state in
            state.answers.merge(answers) { _, new in new }
            for id in request.clear ?? [] { state.answers[id] = nil }
            state.skipped = Array(Set(state.skipped).union(request.skip ?? []).subtracting(request.unskip ?? []).subtracting(answers.keys)).sorted()
        }
    }

    @Sendable
    func addW2(_ request: TaxForm.Interviews.AddW2.Request, _ context: RequestContext) async throws -> TaxForm.Interview {
        let account = try Self.caller(context)
        var validation = Validation()
        let year = engine.checkedYear(request.taxYear, &validation)
        let (checked, issues) = engine.checked(["income.w2s": .list([try TaxForm.Answer(request.w2)])], year: year ?? request.taxYear, at: "data")
        for issue in issues { validation.fail(issue.field.replacingOccurrences(of: "data.income.w2s[0]", with: "data.w2"), issue.message) }
        try validation.finish()
        guard case .list(let added)? = checked["income.w2s"] else { preconditionFailure("a checked W-2 list") }
        return try await change(account: account, year: year!, version: request.version) { state in
            guard case .list(let existing)? = state.answers["income.w2s"] else { return state.answers["income.w2s"] = .list(added) }
            guard existing.count + added.count <= AnswerCheck.maximumW2s else {
                throw OperationError.invalid(field: "data.w2", "cannot be added: the interview has \(existing.count) W-2s, the most it takes")
            }
            state.answers["income.w2s"] = .list(existing + added)
        }
    }

    @Sendable
    func history(_ request: TaxForm.Interviews.History.Request, _ context: RequestContext) async throws -> TaxForm.Interviews.History.Response {
        let account = try Self.caller(context), year = try engine.checkedYear(request.taxYear)
        let limit = try PageRequest(limit: request.limit).checked()
        let changes = try await database.transaction { connection in
            try await store.history(account: account, year: year, before: request.after, limit: limit + 1, on: connection)
        }
        let page = changes.prefix(limit).map { change in
            var masked = change
            masked.answers = change.answers.map { answer in
                let mask = { (value: TaxForm.Answer) in
                    answer.item == nil ? engine.masked(value, question: answer.question) : engine.masked(value, itemOf: answer.question)
                }
                return TaxForm.AnswerChange(question: answer.question, item: answer.item, from: answer.from.map(mask), to: answer.to.map(mask))
            }
            return masked
        }
        return .init(changes: Array(page), nextAfter: changes.count > limit ? page.last?.version : nil)
    }

    /// The answers at an earlier version: the interview as it is, with every later change undone, newest first.
    @Sendable
    func version(_ request: TaxForm.Interviews.Version.Request, _ context: RequestContext) async throws -> TaxForm.Interviews.Version.Response {
        let account = try Self.caller(context), year = try engine.checkedYear(request.taxYear)
        let (row, later) = try await database.transaction { connection in
            let row = try await store.find(account: account, year: year, on: connection)
            guard let row, request.version <= row.version else { return (row, [TaxForm.Change]()) }
            let later = try await store.history(account: account, year: year, before: nil, limit: row.version - request.version + 1, on: connection)
            return (row, later)
        }
        guard let row else { throw Self.noInterview(year) }
        guard request.version <= row.version else {
            throw OperationError(.notFound, "data.version: your interview for \(year) has no such version", fields: [.init(field: "data.version", message: "is not a version of your interview")])
        }
        var state = row.state
        for change in later where change.version > request.version { Self.undo(change, in: &state) }
        let at = later.first { $0.version == request.version }?.at
        return .init(taxYear: year, version: request.version, at: at, answers: engine.masked(state.answers), skipped: state.skipped)
    }

    /// `state` as it was before `change`. A list answer's item changes name positions in the list
    /// before and after: each position takes its value from before, and positions that held nothing
    /// before (items added) go.
    static func undo(_ change: TaxForm.Change, in state: inout InterviewStore.State) {
        var items: [String: [Int: TaxForm.Answer?]] = [:]
        for answer in change.answers {
            if let item = answer.item {
                items[answer.question, default: [:]][item] = .some(answer.from)
            } else {
                state.answers[answer.question] = answer.from
            }
        }
        for (question, positions) in items {
            guard case .list(var list)? = state.answers[question] ?? .list([]) else { continue }
            for (index, value) in positions.sorted(by: { $0.key < $1.key }) {
                if let value {
                    while list.count <= index { list.append(value) }
                    list[index] = value
                }
            }
            let added = positions.filter { $0.value == nil }.map(\.key)
            if let first = added.min(), first < list.count { list.removeSubrange(first...) }
            state.answers[question] = list.isEmpty ? nil : .list(list)
        }
        state.skipped.removeAll { change.skipped.contains($0) }
        for question in change.unskipped where !state.skipped.contains(question) { state.skipped.append(question) }
    }

    @Sendable
    func delete(_ request: TaxForm.InterviewReference, _ context: RequestContext) async throws -> TaxForm.Interviews.Delete.Response {
        let account = try Self.caller(context), year = try engine.checkedYear(request.taxYear)
        let deleted = try await database.transaction { connection in
            let deleted = try await store.delete(account: account, year: year, on: connection)
            if deleted { try await reminders.cancel(account: account, year: year, now: now(), on: connection) }
            return deleted
        }
        guard deleted else { throw Self.noInterview(year) }
        return .init(deleted: true)
    }

    @Sendable
    func filed(_ request: TaxForm.InterviewReference, _ context: RequestContext) async throws -> TaxForm.Interview {
        let account = try Self.caller(context), year = try engine.checkedYear(request.taxYear)
        let row = try await database.transaction { connection -> InterviewStore.Row? in
            try await store.lock(account: account, year: year, on: connection)
            guard let current = try await store.find(account: account, year: year, on: connection) else { return nil }
            if current.filedAt == nil { try await reminders.cancel(account: account, year: year, now: now(), on: connection) }
            var row = current
            row.filedAt = try await store.markFiled(account: account, year: year, on: connection)
            return row
        }
        guard let row else { throw Self.noInterview(year) }
        return view(row, year: year)
    }

    @Sendable
    func deadlines(_ request: TaxForm.Deadlines.Get.Request, _ context: RequestContext) async throws -> TaxForm.Deadlines.Get.Response {
        let account = try Self.caller(context)
        let lastYear = Calendar(identifier: .gregorian).component(.year, from: now()) - 1
        let year = try engine.checkedYear(request.taxYear ?? (engine.rules.years[lastYear] != nil ? lastYear : engine.rules.years.keys.max()!))
        let rules = engine.rules.years[year]!
        let row = try await database.transaction { connection in try await store.find(account: account, year: year, on: connection) }
        let decided: DeadlinePlan? = row.flatMap { plan($0.state, assess($0.state, year: year), year: year) }
        let reminders: [TaxForm.Reminder] = row?.filedAt == nil ? (decided?.reminders ?? []).map { TaxForm.Reminder(daysBefore: $0.daysBefore, date: $0.date) } : []
        let calendar = [
            TaxForm.Deadline(date: rules.deadlines.due(.wages, taxYear: year), what: "Form 1040, and Form 1040-NR with wages"),
            TaxForm.Deadline(date: rules.deadlines.due(.withoutWages, taxYear: year), what: "Form 1040-NR without wages, and Form 8843 filed alone"),
            TaxForm.Deadline(date: rules.deadlines.due(.extended, taxYear: year), what: "with an extension (Form 4868): more time to file, not to pay"),
        ]
        return .init(taxYear: year, calendar: calendar, due: decided?.due, reason: decided?.reason, reminders: reminders, filedAt: row?.filedAt)
    }

    func assess(_ state: InterviewStore.State, year: Int) -> TaxForm.Assessment {
        engine.assess(state.answers, skipped: Set(state.skipped), year: year)
    }

    /// The deadline plan of an interview's answers, from their assessment.
    func plan(_ state: InterviewStore.State, _ assessment: TaxForm.Assessment, year: Int) -> DeadlinePlan? {
        DeadlinePlan.plan(assessment, answers: state.answers, rules: engine.rules.years[year]!)
    }

    /// Applies `edit` to the interview if `version` is still its version, recording what changed;
    /// otherwise 409 with the interview as it is now. `carryOver` first takes the answers about the
    /// person it lacks from the account's latest earlier interview.
    func change(
        account: UUID, year: Int, version: Int, carryOver: Bool = false, _ edit: @Sendable (inout InterviewStore.State) throws -> Void
    ) async throws -> TaxForm.Interview {
        let saved: (row: InterviewStore.Row?, assessment: TaxForm.Assessment?)
        do {
            saved = try await database.transaction { connection -> (InterviewStore.Row?, TaxForm.Assessment?) in
                try await store.lock(account: account, year: year, on: connection)
                let current = try await store.find(account: account, year: year, on: connection)
                guard version == (current?.version ?? 0) else { throw Conflict(row: current) }
                let old = current?.state ?? .init()
                var state = old
                if carryOver, let earlier = try await store.latest(account: account, before: year, on: connection) {
                    for id in engine.carriedOver(year: year) where state.answers[id] == nil {
                        state.answers[id] = earlier.row.state.answers[id]
                    }
                    state.skipped.removeAll { state.answers[$0] != nil }
                }
                try edit(&state)
                guard state != old else { return (current, nil) }
                let at = now(), assessment = assess(state, year: year)
                if current?.filedAt == nil {
                    let new = plan(state, assessment, year: year)
                    try await reminders.move(account: account, year: year, from: plan(old, assess(old, year: year), year: year), to: new, now: at, on: connection)
                    let due = new?.due ?? engine.rules.years[year]!.deadlines.due(.wages, taxYear: year)
                    try await reminders.nudge(account: account, year: year, assessment: assessment, due: due, now: at, on: connection)
                }
                let change = Self.change(from: old, to: state, version: version + 1, at: at)
                return (try await store.save(account: account, year: year, version: version + 1, state: state, change: change, on: connection), assessment)
            }
        } catch let conflict as Conflict {
            let current = view(conflict.row, year: year)
            throw OperationError(
                .conflict, "data.version: another change saved version \(current.version) first; merge with current and send again",
                fields: [.init(field: "data.version", message: "is not the interview's version (\(current.version))")],
                current: try JSONValue.parse(EnvelopeCodec().encode(current)))
        }
        return view(saved.row, year: year, assessment: saved.assessment)
    }

    /// Thrown out of the transaction, then answered with the interview as it is.
    struct Conflict: Error {
        let row: InterviewStore.Row?
    }

    static func change(from old: InterviewStore.State, to new: InterviewStore.State, version: Int, at date: Date) -> TaxForm.Change {
        let ids = Set(old.answers.keys).union(new.answers.keys).sorted()
        return TaxForm.Change(
            version: version, at: date,
            answers: ids.flatMap { id in changes(of: id, from: old.answers[id], to: new.answers[id]) },
            skipped: Set(new.skipped).subtracting(old.skipped).sorted(), unskipped: Set(old.skipped).subtracting(new.skipped).sorted())
    }

    /// How one answer changed: a list that was and stays a list changes item by item, by position (a
    /// W-2 added or edited is one item; removing the first moves those after it), so a change holds
    /// at most the 20 W-2s it touched, never the whole list twice; anything else as a whole.
    static func changes(of id: String, from old: TaxForm.Answer?, to new: TaxForm.Answer?) -> [TaxForm.AnswerChange] {
        guard old != new else { return [] }
        guard case .list(let before)? = old, case .list(let after)? = new else { return [.init(question: id, from: old, to: new)] }
        return (0..<max(before.count, after.count)).compactMap { index in
            let from = index < before.count ? before[index] : nil, to = index < after.count ? after[index] : nil
            return from == to ? nil : .init(question: id, item: index, from: from, to: to)
        }
    }

    /// The interview as replies show it; `assessment` when the caller has it already.
    func view(_ row: InterviewStore.Row?, year: Int, assessment: TaxForm.Assessment? = nil) -> TaxForm.Interview {
        let state = row?.state ?? .init()
        return TaxForm.Interview(
            taxYear: year, version: row?.version ?? 0, answers: engine.masked(state.answers), skipped: state.skipped, filedAt: row?.filedAt,
            updatedAt: row?.updatedAt, assessment: assessment ?? assess(state, year: year))
    }

    static func noInterview(_ year: Int) -> OperationError {
        OperationError(.notFound, "data.taxYear: you have no interview for \(year)", fields: [.init(field: "data.taxYear", message: "has no interview of yours")])
    }

    static func caller(_ context: RequestContext) throws(OperationError) -> UUID {
        try context.attributes.signedInAccount(for: "tax interviews")
    }
}
