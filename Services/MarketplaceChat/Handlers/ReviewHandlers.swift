import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.reviews.*`: the two sides of a sale review each other; a trader's rating.
struct ReviewHandlers: Sendable {
    let database: Database
    let reviews: ReviewStore
    let traders: TraderStore
    let blocks: BlockStore
    let access: MarketAccess

    static let noDeal = OperationError(
        .notFound, "data.listingId: you bought or sold no such listing here", fields: [.init(field: "data.listingId", message: "is not a sale of yours")])
    static let noTrader = OperationError(
        .notFound, "data.accountId: there is no such trader in your network", fields: [.init(field: "data.accountId", message: "is not a trader of your network")])

    @Sendable
    func prepareCreate(_ request: MarketplaceChat.Reviews.Create.Request, _ context: RequestContext) async throws -> MarketplaceChat.Reviews.Create.Request {
        var validation = Validation()
        var checked = request
        checked.text = validation.checkText(request.text, "data.text", MarketplaceChat.Bounds.reviewText, newlines: true)
        try validation.finish()
        return checked
    }

    @Sendable
    func create(_ request: MarketplaceChat.Reviews.Create.Request, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> MarketplaceChat.Reviews.Create.Response
    {
        let caller = try await access.caller(context, recording: true, on: connection)
        guard let listing = UUID(uuidString: request.listingId), let deal = try await reviews.deal(listing, on: connection),
              deal.university == caller.network.university, [deal.buyer, deal.seller].contains(caller.account)
        else { throw Self.noDeal }
        let role: MarketplaceChat.DealRole = caller.account == deal.buyer ? .buyer : .seller
        guard database.now() < deal.soldAt.adding(MarketplaceChat.Bounds.reviewWindow) else {
            throw OperationError(.conflict, "the 14 days to review this sale ended")
        }
        guard try await reviews.add(deal, by: role, stars: request.stars, text: request.text ?? "", on: connection) else {
            throw OperationError(.conflict, "you reviewed this sale already")
        }
        guard let (review, shown) = try await reviews.review(of: listing, by: role, on: connection) else { throw OperationError(.unavailable, "try again") }
        return .init(review: review, shown: shown)
    }

    @Sendable
    func list(_ request: MarketplaceChat.Reviews.List.Request, _ context: RequestContext) async throws -> MarketplaceChat.Reviews.List.Response {
        let limit = try request.page.checked()
        return try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            // Someone of another network, someone blocked either way and no one at all are alike.
            guard let subject = UUID(uuidString: request.accountId),
                  try await traders.network(of: subject, on: connection) == caller.network.university,
                  try await !blocks.between(subject, caller.account, on: connection),
                  let trader = try await traders.traders([subject], on: connection).first
            else { throw Self.noTrader }
            let page = try await reviews.reviews(of: subject, before: request.after, limit: limit, on: connection)
            return .init(
                trader: trader, rating: try await reviews.summary(of: subject, on: connection), reviews: page,
                nextAfter: page.count == limit ? page.last?.number : nil)
        }
    }
}
