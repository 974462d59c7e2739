import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import NotificationsContract
import PostgresNIO
import PostgresSupport
import ServiceKit

/// `marketplace-chat.reports.*`, `cases.*`, `suspensions.*`, `appeals.*`, `decisions.*` and
/// `standing.*`: users report what they see; moderators (the `moderator` role) work the queue, and
/// each decision enters the audit log; an account appeals a decision about it once.
struct ModerationHandlers: Sendable {
    let database: Database
    let moderation: ModerationStore
    let listings: ListingHandlers
    let messages: MessageStore
    let conversations: ConversationStore
    let traders: TraderStore
    let market: MarketAccess
    let chat: ChatAccess
    let live: LiveLog

    /// Reports an account makes an hour.
    static let reporting = RateLimit("moderation.reports", count: 30, per: .seconds(3_600), message: "too many reports this hour; try again later")

    static let noSubject = OperationError(
        .notFound, "data.id: there is nothing you may report under that id", fields: [.init(field: "data.id", message: "is not something you may report")])
    static let noCase = OperationError(
        .notFound, "data.caseId: there is no such case", fields: [.init(field: "data.caseId", message: "is not a case")])
    static let noDecision = OperationError(
        .notFound, "data.decisionId: there is no such decision about you", fields: [.init(field: "data.decisionId", message: "is not a decision about you")])
    static let notModerator = OperationError(.forbidden, "moderation is for accounts with the moderator role")

    /// `request` with its prose member at `path` checked (newlines kept) as `field` within `bounds`,
    /// after `more` checks of its own; or `invalid` naming every field wrong.
    static func checking<Request>(_ request: Request, _ path: WritableKeyPath<Request, String>, _ field: String, _ bounds: ClosedRange<Int>,
                                          more: (inout Validation) -> Void = { _ in }) throws -> Request {
        var validation = Validation()
        var checked = request
        checked[keyPath: path] = validation.checkText(request[keyPath: path], field, bounds, newlines: true) ?? ""
        more(&validation)
        try validation.finish()
        return checked
    }

    // MARK: - Reports

    @Sendable
    func prepareReport(_ request: MarketplaceChat.Reports.Create.Request, _ context: RequestContext) async throws -> MarketplaceChat.Reports.Create.Request {
        var validation = Validation()
        var checked = request
        checked.details = validation.checkText(request.details, "data.details", MarketplaceChat.Bounds.reportDetails, newlines: true)
        try validation.finish()
        return checked
    }

    @Sendable
    func report(_ request: MarketplaceChat.Reports.Create.Request, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> MarketplaceChat.Reports.Create.Response
    {
        let (reporter, reported) = try await subject(request, context, on: connection)
        guard reported.account != reporter else { throw OperationError.invalid(field: "data.id", "is yours: report what others post") }
        try await database.hit(Self.reporting, [.account(reporter.uuidString)], at: database.now(), on: connection)
        guard let (id, reporters) = try await moderation.report(reported, by: reporter, reason: request.reason, details: request.details ?? "", on: connection)
        else { throw OperationError(.conflict, "you reported this already: the moderators have it") }
        if reporters >= MarketplaceChat.Bounds.hidingReporters { try await moderation.hide(id, reported, on: connection) }
        context.logger.notice("reported", metadata: ["case": "\(id)", "subject": "\(request.subject.rawValue)", "reporters": "\(reporters)"])
        return .init(subject: request.subject, id: request.id, reportedAt: database.now())
    }

    /// The reporter and what they report, as they may see it; anything else answers `noSubject`.
    private func subject(_ request: MarketplaceChat.Reports.Create.Request, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> (UUID, ModerationStore.Reported)
    {
        switch request.subject {
        case .listing:
            let caller = try await market.caller(context, on: connection)
            let row: ListingStore.Row
            do { row = try await listings.visible(request.id, caller, on: connection) } catch { throw Self.noSubject }
            let values = row.view
            return (caller.account, .init(
                kind: .listing, id: row.id, account: row.seller, university: row.university,
                snapshot: .init(title: values.title, description: values.description, price: values.price, username: values.sellerUsername)))
        case .message:
            let caller = try await chat.caller(context, on: connection)
            guard let id = UUID(uuidString: request.id),
                  let found = try await messages.received(id, by: caller.account, kind: caller.kind, university: caller.university, on: connection),
                  let message = try await messages.messages(in: found.conversation, of: caller.account, before: nil, only: found.seq, limit: 1, on: connection).first
            else { throw Self.noSubject }
            // A picture is kept for the moderators as its thumbnail, sealed with the rest.
            var picture: Data?
            if let record = try await messages.image(id, in: found.conversation, of: caller.account, on: connection) {
                let library = try await messages.images(of: found.conversation, on: connection)
                picture = try await library.file(record, .thumbnail, ifNoneMatch: nil, on: connection).content
            }
            return (caller.account, .init(
                kind: .message, id: id, account: found.sender, university: caller.university,
                snapshot: .init(username: try await conversations.username(of: found.sender, on: connection), message: message, picture: picture)))
        case .account:
            let caller = try await chat.caller(context, on: connection)
            guard let id = UUID(uuidString: request.id), id != caller.account else { throw Self.noSubject }
            let known = if let university = caller.university {
                try await traders.network(of: id, on: connection) == university
            } else {
                try await conversations.share(caller.account, id, on: connection)
            }
            guard known, let username = try await conversations.username(of: id, on: connection) else { throw Self.noSubject }
            return (caller.account, .init(kind: .account, id: id, account: id, university: caller.university, snapshot: .init(username: username)))
        }
    }

    // MARK: - The queue

    func moderator(_ context: RequestContext) throws -> ModerationStore.Moderator {
        let account = try context.attributes.signedInAccount(for: "moderation")
        guard context.attributes.roles.contains("moderator") else { throw Self.notModerator }
        return .init(account: account, username: context.attributes.username ?? "moderator")
    }

    @Sendable
    func cases(_ request: MarketplaceChat.Moderation.ListCases.Request, _ context: RequestContext) async throws
        -> MarketplaceChat.Moderation.ListCases.Response
    {
        _ = try moderator(context)
        let limit = try request.page.checked()
        let found = try await database.transaction { connection in
            try await moderation.queue(closed: request.closed == true, after: request.after, limit: limit, on: connection)
        }
        return .init(cases: found, nextAfter: found.count == limit ? found.last?.number : nil)
    }

    @Sendable
    func getCase(_ request: MarketplaceChat.Moderation.CaseReference, _ context: RequestContext) async throws -> MarketplaceChat.ModerationCase {
        _ = try moderator(context)
        return try await database.transaction { connection in
            guard let id = UUID(uuidString: request.caseId), let found = try await moderation.case(id, on: connection) else { throw Self.noCase }
            return found.view
        }
    }

    @Sendable
    func prepareDecision(_ request: MarketplaceChat.Moderation.Decide.Request, _ context: RequestContext) async throws
        -> MarketplaceChat.Moderation.Decide.Request
    {
        _ = try moderator(context)
        return try Self.checking(request, \.note, "data.note", MarketplaceChat.Bounds.moderationNote) { validation in
            validation.check([.dismiss, .remove, .warn, .suspend].contains(request.action), "data.action", "must be dismiss, remove, warn or suspend")
            if request.days != nil { validation.check(request.action == .suspend, "data.days", "is for a suspension only") }
        }
    }

    @Sendable
    func decide(_ request: MarketplaceChat.Moderation.Decide.Request, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> MarketplaceChat.ModerationDecision
    {
        let moderator = try moderator(context)
        guard let id = UUID(uuidString: request.caseId), let found = try await moderation.case(id, locking: true, on: connection) else { throw Self.noCase }
        guard found.open else { throw OperationError(.conflict, "this case is decided already") }
        let action = request.action
        if action == .remove, found.kind == .account {
            throw OperationError.invalid(field: "data.action", "remove is for a listing or a message: warn or suspend an account")
        }
        if [.warn, .suspend].contains(action), found.account == nil {
            throw OperationError(.conflict, "the account was deleted: dismiss the case, or remove what it reported")
        }
        var previous: String?
        switch (action, found.kind) {
        case (.remove, .listing), (.suspend, .listing):
            previous = try await moderation.remove(listing: found.subject, hiddenState: found.hiddenState, on: connection)
        case (.remove, .message), (.suspend, .message):
            if let removed = try await moderation.remove(message: found.subject, on: connection) {
                try await messages.deleteImages([removed.picture], on: connection)
                try await live.append("deleted", ChatLive.DeletedRef(c: removed.conversation, m: found.subject), for: removed.members, on: connection)
            }
        case (.dismiss, .listing), (.warn, .listing):
            if let state = found.hiddenState { try await moderation.restore(listing: found.subject, to: state, from: ["hidden"], on: connection) }
        default:
            break
        }
        let until = request.days.map { database.now().adding(.seconds($0 * 86_400)) }
        let decisionID = UUID()
        let decision = try await moderation.record(
            action, id: decisionID, case: id, account: found.account, by: moderator, note: request.note, previousState: previous,
            suspendedUntil: action == .suspend ? until : nil, on: connection)
        if action == .suspend, let account = found.account { try await moderation.suspend(account, decision: decisionID, until: until, on: connection) }
        try await moderation.close(id, on: connection)
        if action != .dismiss { try await tell(found.account, decision, on: connection) }
        context.logger.notice("case decided", metadata: ["case": "\(id)", "action": "\(action.rawValue)", "decision": "\(decisionID)"])
        return decision
    }

    @Sendable
    func prepareLift(_ request: MarketplaceChat.Moderation.Lift.Request, _ context: RequestContext) async throws -> MarketplaceChat.Moderation.Lift.Request {
        _ = try moderator(context)
        return try Self.checking(request, \.note, "data.note", MarketplaceChat.Bounds.moderationNote)
    }

    @Sendable
    func lift(_ request: MarketplaceChat.Moderation.Lift.Request, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> MarketplaceChat.ModerationDecision
    {
        let moderator = try moderator(context)
        guard let account = UUID(uuidString: request.accountId), try await moderation.lift(account, on: connection) else {
            throw OperationError(.notFound, "data.accountId: no suspension of that account is in force", fields: [
                .init(field: "data.accountId", message: "is not a suspended account"),
            ])
        }
        let decision = try await moderation.record(.lift, case: nil, account: account, by: moderator, note: request.note, on: connection)
        try await tell(account, decision, on: connection)
        return decision
    }

    @Sendable
    func appeals(_ request: MarketplaceChat.Moderation.ListAppeals.Request, _ context: RequestContext) async throws
        -> MarketplaceChat.Moderation.ListAppeals.Response
    {
        _ = try moderator(context)
        let limit = try PageRequest(limit: request.limit).checked()
        let found = try await database.transaction { connection in
            try await moderation.openAppeals(after: request.after, limit: limit, on: connection)
        }
        return .init(appeals: found, nextAfter: found.count == limit ? found.last?.number : nil)
    }

    @Sendable
    func prepareAnswer(_ request: MarketplaceChat.Moderation.Answer.Request, _ context: RequestContext) async throws
        -> MarketplaceChat.Moderation.Answer.Request
    {
        _ = try moderator(context)
        return try Self.checking(request, \.note, "data.note", MarketplaceChat.Bounds.moderationNote) { validation in
            validation.check([.uphold, .overturn].contains(request.action), "data.action", "must be uphold or overturn")
        }
    }

    @Sendable
    func answer(_ request: MarketplaceChat.Moderation.Answer.Request, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> MarketplaceChat.ModerationDecision
    {
        let moderator = try moderator(context)
        guard let id = UUID(uuidString: request.decisionId), let appeal = try await moderation.appealOf(id, on: connection) else {
            throw OperationError(.notFound, "data.decisionId: no decision under that id was appealed", fields: [
                .init(field: "data.decisionId", message: "is not an appealed decision"),
            ])
        }
        guard appeal.state == .open else { throw OperationError(.conflict, "this appeal is answered already") }
        if request.action == .overturn { try await undo(appeal, on: connection) }
        try await moderation.answer(id, request.action == .overturn ? .overturned : .upheld, on: connection)
        let decision = try await moderation.record(
            request.action, case: appeal.caseID, appealOf: id, account: appeal.account, by: moderator, note: request.note, on: connection)
        try await tell(appeal.account, decision, on: connection)
        return decision
    }

    /// Undoes what an overturned decision did: a suspension it made ends, a listing it removed is back
    /// as it was (a deleted message cannot come back), a warning is struck by the appeal's state.
    private func undo(_ appeal: ModerationStore.AppealRow, on connection: PostgresConnection) async throws {
        switch appeal.decision.action {
        case .suspend:
            _ = try await moderation.lift(appeal.account, decision: appeal.decisionID, on: connection)
        default:
            break
        }
        if let state = appeal.previousState, let caseID = appeal.caseID, let found = try await moderation.case(caseID, on: connection),
           found.kind == .listing {
            try await moderation.restore(listing: found.subject, to: state, from: ["removed"], on: connection)
        }
    }

    @Sendable
    func log(_ request: PageRequest, _ context: RequestContext) async throws -> MarketplaceChat.Moderation.Log.Response {
        _ = try moderator(context)
        let limit = try request.checked()
        let found = try await database.transaction { connection in
            try await moderation.log(before: request.after, limit: limit, on: connection)
        }
        return .init(decisions: found, nextAfter: found.count == limit ? found.last?.number : nil)
    }

    /// Tells the account a decision concerns, through notifications' outbox; the note stays in the app.
    func tell(_ account: UUID?, _ decision: MarketplaceChat.ModerationDecision, on connection: PostgresConnection) async throws {
        guard let account else { return }
        let title = switch decision.action {
        case .remove: "A moderator removed something you posted"
        case .warn: "A warning from the marketplace's moderators"
        case .suspend: "Your use of the marketplace is suspended"
        case .lift: "Your suspension has been lifted"
        case .uphold: "Your appeal was answered: the decision stands"
        case .overturn: "Your appeal was upheld"
        case .dismiss: "A report about you was dismissed"
        }
        let event = Notifications.EventType.moderationNotice
        let content = Notifications.Content(
            app: event.app, eventType: event.name, category: event.category, alert: .init(title: title, body: "See your standing in the app"),
            data: ["decisionId": decision.id], threadID: "moderation")
        try await database.enqueue(Notifications.Push.Send.self, .init(recipients: [ListingStore.text(account)], content: content), on: connection)
    }
}
