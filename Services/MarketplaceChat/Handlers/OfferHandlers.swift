import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.offers.*`: a buyer offers, the seller accepts, declines or counters; an
/// accepted offer reserves the listing for the buyer.
struct OfferHandlers: Sendable {
    let database: Database
    let offers: OfferStore
    let listings: ListingStore
    let blocks: BlockStore
    let access: MarketAccess

    /// Offers a buyer makes an hour.
    static let offering = RateLimit("marketplace.offers", count: 30, per: .seconds(3_600), message: "too many offers this hour; try again later")

    static let noListing = OperationError(
        .notFound, "data.listingId: there is no such listing in your network", fields: [.init(field: "data.listingId", message: "is not a listing of your network")])
    static let noOffer = OperationError(
        .notFound, "data.offerId: there is no such offer of yours", fields: [.init(field: "data.offerId", message: "is not an offer you made or received")])

    @Sendable
    func prepareCreate(_ request: MarketplaceChat.Offers.Create.Request, _ context: RequestContext) async throws -> MarketplaceChat.Offers.Create.Request {
        request
    }

    @Sendable
    func create(_ request: MarketplaceChat.Offers.Create.Request, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> MarketplaceChat.Offer
    {
        let caller = try await access.caller(context, recording: true, on: connection)
        let listing = try await visible(request.listingId, caller, locking: true, on: connection)
        guard listing.seller != caller.account else { throw OperationError.invalid(field: "data.listingId", "is your own listing") }
        guard listing.view.state == .active else { throw OperationError(.conflict, "only a listing for sale takes offers; this one is \(listing.view.state.rawValue)") }
        guard listing.values.priceMinorUnits > 0 else { throw OperationError(.conflict, "this listing is free: ask for it in a conversation") }
        try await database.hit(Self.offering, [.account(caller.account.uuidString)], at: database.now(), on: connection)
        guard let id = try await offers.create(
            on: listing.id, by: caller.account, amount: request.amountMinorUnits, currency: listing.view.price.currency, on: connection)
        else { throw OperationError(.conflict, "you have an offer open on this listing: wait for the answer, or decline it to make another") }
        guard let offer = try await offers.offer(id, on: connection) else { throw OperationError(.unavailable, "try again") }
        try await tell(listing.seller, "New offer", offer, on: connection)
        return offer.view(caller.account)
    }

    @Sendable
    func list(_ request: MarketplaceChat.Listings.Reference, _ context: RequestContext) async throws -> MarketplaceChat.Offers.List.Response {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            let listing = try await visible(request.listingId, caller, on: connection)
            let rows = try await offers.offers(on: listing.id, by: listing.seller == caller.account ? nil : caller.account, on: connection)
            return .init(offers: rows.map { $0.view(caller.account) })
        }
    }

    @Sendable
    func accept(_ request: MarketplaceChat.Offers.Reference, _ context: RequestContext) async throws -> MarketplaceChat.Offer {
        try await database.transaction { connection in
            let (caller, offer) = try await party(request.offerId, context, on: connection)
            switch (offer.state, caller == offer.seller) {
            case (.accepted, _): return offer.view(caller)
            case (.open, true), (.countered, false):
                guard try await listings.listing(offer.listing, on: connection)?.view.state == .active else {
                    throw OperationError(.conflict, "the listing is no longer for sale")
                }
                try await offers.accept(offer, on: connection)
                try await tell(caller == offer.seller ? offer.buyer : offer.seller, "Offer accepted", offer, on: connection)
            case (.open, false): throw OperationError(.conflict, "the seller answers an open offer")
            case (.countered, true): throw OperationError(.conflict, "the buyer answers a counter-offer")
            default: throw OperationError(.conflict, "this offer is \(offer.state.rawValue)")
            }
            return try await reread(offer.id, for: caller, on: connection)
        }
    }

    @Sendable
    func decline(_ request: MarketplaceChat.Offers.Reference, _ context: RequestContext) async throws -> MarketplaceChat.Offer {
        try await database.transaction { connection in
            let (caller, offer) = try await party(request.offerId, context, on: connection)
            switch offer.state {
            case .declined: return offer.view(caller)
            case .accepted where !offer.reserved: throw OperationError(.conflict, "the listing was sold on this offer")
            case .open, .countered, .accepted:
                try await offers.decline(offer, on: connection)
                try await tell(caller == offer.seller ? offer.buyer : offer.seller, "Offer declined", offer, on: connection)
            case .expired: throw OperationError(.conflict, "this offer expired")
            }
            return try await reread(offer.id, for: caller, on: connection)
        }
    }

    @Sendable
    func counter(_ request: MarketplaceChat.Offers.Counter.Request, _ context: RequestContext) async throws -> MarketplaceChat.Offer {
        try await database.transaction { connection in
            let (caller, offer) = try await party(request.offerId, context, on: connection)
            guard caller == offer.seller else { throw OperationError(.conflict, "the seller counters an offer; make another offer instead") }
            switch offer.state {
            case .countered where offer.counter == request.amountMinorUnits: return offer.view(caller)
            case .open:
                try await offers.counter(offer.id, amount: request.amountMinorUnits, on: connection)
                try await tell(offer.buyer, "Counter-offer", offer, on: connection)
            default: throw OperationError(.conflict, "only an open offer can be countered; this one is \(offer.state.rawValue)")
            }
            return try await reread(offer.id, for: caller, on: connection)
        }
    }

    // MARK: - Parts

    /// A listing of the caller's network, not across a block, or `noListing`; `locking` it against a
    /// concurrent acceptance or sale.
    private func visible(_ reference: String, _ caller: MarketAccess.Caller, locking: Bool = false, on connection: PostgresConnection) async throws
        -> ListingStore.Row
    {
        guard let id = UUID(uuidString: reference), let listing = try await listings.listing(id, locking: locking, on: connection),
              listing.university == caller.network.university, listing.view.state != .draft || listing.seller == caller.account,
              try await !blocks.between(listing.seller, caller.account, on: connection)
        else { throw Self.noListing }
        return listing
    }

    /// The caller and the offer `reference` they made or received (locked), or `noOffer`.
    private func party(_ reference: String, _ context: RequestContext, on connection: PostgresConnection) async throws -> (UUID, OfferStore.Row) {
        let caller = try await access.caller(context, recording: true, on: connection)
        guard let id = UUID(uuidString: reference), let offer = try await offers.offer(id, locking: true, on: connection),
              [offer.buyer, offer.seller].contains(caller.account)
        else { throw Self.noOffer }
        return (caller.account, offer)
    }

    private func reread(_ id: UUID, for caller: UUID, on connection: PostgresConnection) async throws -> MarketplaceChat.Offer {
        guard let offer = try await offers.offer(id, on: connection) else { throw Self.noOffer }
        return offer.view(caller)
    }

    /// Pushes the news of an offer to the other side (through notifications' outbox).
    private func tell(_ account: UUID, _ title: String, _ offer: OfferStore.Row, on connection: PostgresConnection) async throws {
        try await offers.tell(account, title, offer: offer.id, listing: offer.listing, title: offer.title, on: connection)
    }
}
