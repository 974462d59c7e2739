import Bus
import Contracts
import Envelope
import Foundation
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// `payments.campaigns.*`: campaigns anyone in the fundraising app reads, and their owners change
/// and close. Another's campaign is changed or closed as if it did not exist.
struct CampaignHandlers: Sendable {
    let database: Database
    let campaigns: CampaignStore
    let figures: CampaignFigures
    let access: FundraisingAccess

    /// Campaigns one account starts a day.
    static let starting = RateLimit("campaigns.create", count: 10, per: .seconds(86_400), message: "too many new campaigns today; try again tomorrow")

    static let notFound = OperationError(
        .notFound, "data.campaignId: there is no such campaign", fields: [.init(field: "data.campaignId", message: "is not a campaign")])
    static let notYours = OperationError(
        .notFound, "data.campaignId: you have no such campaign", fields: [.init(field: "data.campaignId", message: "is not one of your campaigns")])
    static let closed = OperationError(.conflict, "the campaign is closed: it changes no more")

    @Sendable
    func prepareCreate(_ request: Payments.Campaigns.Create.Request, _ context: RequestContext) async throws -> CampaignStore.New {
        var validation = Validation()
        let fields = check(
            title: request.title, story: request.story, beneficiary: request.beneficiary, goal: request.goal, endsAt: request.endsAt, &validation)
        try validation.finish()
        guard let title = fields.title, let story = fields.story, let beneficiary = fields.beneficiary, let goal = fields.goal else {
            throw OperationError.invalid(field: "data", "must give a title, a story, a beneficiary and a goal")
        }
        return .init(
            title: title, story: story, beneficiary: beneficiary, category: request.category, goal: goal, endsAt: request.endsAt,
            weeklyProgress: request.weeklyProgress ?? true)
    }

    @Sendable
    func create(_ new: CampaignStore.New, _ context: RequestContext, on connection: PostgresConnection) async throws -> Payments.Campaign {
        let caller = try await access.caller(context, recording: true, on: connection)
        try await database.hit(Self.starting, [.account(caller.uuidString)], at: database.now(), on: connection)
        let id = try await campaigns.create(new, owner: caller, on: connection)
        guard let row = try await campaigns.campaign(id, viewer: caller, on: connection) else { throw Self.notFound }
        context.logger.notice("campaign started", metadata: ["campaign": "\(id)"])
        return row.view
    }

    @Sendable
    func get(_ request: Payments.CampaignReference, _ context: RequestContext) async throws -> Payments.CampaignDetail {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            guard let id = UUID(uuidString: request.campaignId), let row = try await campaigns.campaign(id, viewer: caller, on: connection) else {
                throw Self.notFound
            }
            return .init(campaign: row.view, statistics: try await figures.statistics(of: id, on: connection))
        }
    }

    /// The Melon project's own campaign, from any app.
    @Sendable
    func project(_ request: Empty, _ context: RequestContext) async throws -> Payments.CampaignDetail {
        try await database.transaction { connection in
            let caller = try await access.caller(context, fromAnyApp: true, on: connection)
            guard let id = UUID(uuidString: Payments.projectCampaignId), let row = try await campaigns.campaign(id, viewer: caller, on: connection) else {
                throw Self.notFound
            }
            return .init(campaign: row.view, statistics: try await figures.statistics(of: id, on: connection))
        }
    }

    @Sendable
    func list(_ request: Payments.Campaigns.List.Request, _ context: RequestContext) async throws -> Payments.Campaigns.List.Response {
        let query = try CampaignQuery(request)
        return try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            let (page, next) = try await query.page(campaigns, viewer: caller, now: database.now(), on: connection)
            return .init(campaigns: page, nextAfter: next)
        }
    }

    @Sendable
    func mine(_ request: PageRequest, _ context: RequestContext) async throws -> Payments.CampaignPage {
        let limit = try request.checked()
        return try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            let rows = try await campaigns.owned(by: caller, viewer: caller, before: request.after, limit: limit, on: connection)
            return .init(campaigns: rows.map(\.view), nextAfter: rows.count == limit ? rows.last?.seq : nil)
        }
    }

    @Sendable
    func update(_ request: Payments.Campaigns.Update.Request, _ context: RequestContext) async throws -> Payments.Campaign {
        var validation = Validation()
        let fields = check(
            title: request.title, story: request.story, beneficiary: request.beneficiary, goal: request.goal, endsAt: request.endsAt, &validation)
        try validation.finish()
        return try await database.transaction { connection in
            let (caller, row) = try await owned(request.campaignId, context, on: connection)
            guard row.view.state == .open else { throw Self.closed }
            guard row.view.version == request.version else {
                throw OperationError(.conflict, "the campaign changed since version \(request.version): read it again (it is at \(row.view.version))")
            }
            if let goal = fields.goal, goal < row.view.raised.minorUnits {
                throw OperationError.invalid(field: "data.goal", "must not be below what the campaign raised (\(row.view.raised))")
            }
            try await campaigns.update(
                row.id, title: fields.title, story: fields.story, beneficiary: fields.beneficiary, category: request.category, goal: fields.goal,
                endsAt: request.endsAt, weeklyProgress: request.weeklyProgress, on: connection)
            guard let changed = try await campaigns.campaign(row.id, viewer: caller, on: connection) else { throw Self.notFound }
            return changed.view
        }
    }

    @Sendable
    func close(_ request: Payments.CampaignReference, _ context: RequestContext) async throws -> Payments.Campaign {
        try await database.transaction { connection in
            let (caller, row) = try await owned(request.campaignId, context, on: connection)
            try await campaigns.close(row.id, on: connection)
            guard let closed = try await campaigns.campaign(row.id, viewer: caller, on: connection) else { throw Self.notFound }
            context.logger.notice("campaign closed by its owner", metadata: ["campaign": "\(row.id)"])
            return closed.view
        }
    }

    // MARK: - Parts

    /// The caller and their campaign `reference` (its row locked), or `notYours`.
    func owned(_ reference: String, _ context: RequestContext, on connection: PostgresConnection) async throws -> (UUID, CampaignStore.Row) {
        let caller = try await access.caller(context, recording: true, on: connection)
        guard let id = UUID(uuidString: reference), let row = try await campaigns.campaign(id, viewer: caller, locking: true, on: connection),
              row.owner == caller
        else { throw Self.notYours }
        return (caller, row)
    }

    /// The texts, goal and end date of a campaign as given (nil when absent), each checked.
    private func check(title: String?, story: String?, beneficiary: String?, goal: Money?, endsAt: Date?, _ validation: inout Validation)
        -> (title: String?, story: String?, beneficiary: String?, goal: Int64?)
    {
        // Each within its bounds (empty is too short), without control characters; the story keeps its lines.
        let checkedTitle = validation.checkText(title, "data.title", Payments.Bounds.title)
        let checkedStory = validation.checkText(story, "data.story", Payments.Bounds.story, newlines: true)
        let checkedBeneficiary = validation.checkText(beneficiary, "data.beneficiary", Payments.Bounds.beneficiary)
        if let goal {
            validation.check(goal.currency == Payments.currency, "data.goal.currency", "must be EUR: the fundraising app is in euros")
            validation.check(Payments.Bounds.goalMinorUnits.contains(goal.minorUnits), "data.goal.minorUnits", "must be from 1000 (10 euro) to 100000000")
        }
        if let endsAt {
            let now = database.now()
            validation.check(endsAt > now && endsAt <= now.adding(Payments.Bounds.longestRun), "data.endsAt", "must be after now and within a year")
        }
        return (checkedTitle, checkedStory, checkedBeneficiary, goal?.minorUnits)
    }
}
