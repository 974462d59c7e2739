import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.following.*` and `marketplace-chat.saved-searches.*`: the sellers and the
/// searches whose new listings the caller hears of.
struct FollowHandlers: Sendable {
    let database: Database
    let follows: FollowStore
    let blocks: BlockStore
    let traders: TraderStore
    let access: MarketAccess

    /// Follows a trader starts an hour.
    static let following = RateLimit("marketplace.follows", count: 100, per: .seconds(3_600), message: "too many follows this hour; try again later")

    static let noTrader = OperationError(
        .notFound, "data.accountId: there is no such trader in your network",
        fields: [.init(field: "data.accountId", message: "is not a trader of your network")])
    static let noSearch = OperationError(
        .notFound, "data.savedSearchId: you keep no such search", fields: [.init(field: "data.savedSearchId", message: "is not one of your saved searches")])

    @Sendable
    func follow(_ request: MarketplaceChat.Following.Reference, _ context: RequestContext) async throws -> MarketplaceChat.Following.Outcome {
        try await database.transaction { connection in
            let caller = try await access.caller(context, recording: true, on: connection)
            // Someone of another network, someone blocked either way and no one at all are alike.
            guard let followee = UUID(uuidString: request.accountId), followee != caller.account,
                  try await traders.network(of: followee, on: connection) == caller.network.university,
                  try await !blocks.between(followee, caller.account, on: connection)
            else { throw Self.noTrader }
            try await database.hit(Self.following, [.account(caller.account.uuidString)], at: database.now(), on: connection)
            try await follows.follow(followee, by: caller.account, on: connection)
            return .init(following: true)
        }
    }

    @Sendable
    func unfollow(_ request: MarketplaceChat.Following.Reference, _ context: RequestContext) async throws -> MarketplaceChat.Following.Outcome {
        guard let followee = UUID(uuidString: request.accountId) else { throw OperationError.invalid(field: "data.accountId", "must be an account id") }
        return try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            try await follows.unfollow(followee, by: caller.account, on: connection)
            return .init(following: false)
        }
    }

    @Sendable
    func following(_ request: Empty, _ context: RequestContext) async throws -> MarketplaceChat.Following.List.Response {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            return .init(traders: try await follows.followed(by: caller.account, in: caller.network.university, traders: traders, on: connection))
        }
    }

    @Sendable
    func prepareSave(_ request: MarketplaceChat.SavedSearches.Create.Request, _ context: RequestContext) async throws
        -> (q: String?, request: MarketplaceChat.SavedSearches.Create.Request)
    {
        var validation = Validation()
        let q = FeedQuery.checkFilters(q: request.q, minPrice: request.minPrice, maxPrice: request.maxPrice, &validation)
        let narrows = q != nil || request.category != nil || request.campus != nil || request.condition != nil || (request.minPrice ?? 0) > 0
            || (request.maxPrice ?? MarketplaceChat.Bounds.priceMinorUnits) < MarketplaceChat.Bounds.priceMinorUnits || request.free == true
        validation.check(narrows || !validation.isValid, "data", "must name words or a filter: a search of everything would push every listing")
        try validation.finish()
        return (q, request)
    }

    @Sendable
    func save(_ prepared: (q: String?, request: MarketplaceChat.SavedSearches.Create.Request), _ context: RequestContext,
              on connection: PostgresConnection) async throws -> MarketplaceChat.SavedSearch {
        let caller = try await access.caller(context, recording: true, on: connection)
        let request = prepared.request
        var validation = Validation()
        if let category = request.category {
            validation.check(try await traders.hasCategory(category, on: connection), "data.category", "is not one of the marketplace's categories")
        }
        if let campus = request.campus {
            validation.check(try await traders.hasCampus(campus, in: caller.network.university, on: connection), "data.campus", "is not one of your network's campuses")
        }
        try validation.finish()
        return try await follows.save(request, q: prepared.q, by: caller.account, in: caller.network.university, on: connection)
    }

    @Sendable
    func searches(_ request: Empty, _ context: RequestContext) async throws -> MarketplaceChat.SavedSearches.List.Response {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            return .init(savedSearches: try await follows.searches(of: caller.account, on: connection))
        }
    }

    @Sendable
    func deleteSearch(_ request: MarketplaceChat.SavedSearches.Delete.Request, _ context: RequestContext) async throws
        -> MarketplaceChat.SavedSearches.Delete.Response
    {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            guard let id = UUID(uuidString: request.savedSearchId), try await follows.deleteSearch(id, of: caller.account, on: connection)
            else { throw Self.noSearch }
            return .init(deleted: true)
        }
    }
}
