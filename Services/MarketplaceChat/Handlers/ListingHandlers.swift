import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.listings.*`: a seller lists, changes, publishes, sells and removes; the
/// network reads a listing while it is for sale or sold. Anyone else, and any id that names no
/// listing, gets the same `not_found`; so does anyone but its seller on the seller's routes.
struct ListingHandlers: Sendable {
    let database: Database
    let listings: ListingStore
    let photos: PhotoStore
    let traders: TraderStore
    let blocks: BlockStore
    let follows: FollowStore
    let conversations: ConversationStore
    let offers: OfferStore
    let access: MarketAccess

    /// A seller lists at most this many an hour.
    static let creations = RateLimit("marketplace.listings", count: 30, per: .seconds(3_600), message: "too many listings this hour; try again later")

    static let notFound = OperationError(
        .notFound, "data.listingId: there is no such listing", fields: [.init(field: "data.listingId", message: "is not a listing you may see")])

    typealias Prepared = (values: ListingStore.Values, photos: [UUID], request: MarketplaceChat.Listings.Create.Request)

    @Sendable
    func prepareCreate(_ request: MarketplaceChat.Listings.Create.Request, _ context: RequestContext) async throws -> Prepared {
        var validation = Validation()
        let title = validation.checkText(request.title, "data.title", MarketplaceChat.Bounds.title)
        let description = validation.checkText(request.description, "data.description", MarketplaceChat.Bounds.description, newlines: true)
        Self.checkPrice(request.priceMinorUnits, &validation)
        let photos = Self.photoIDs(request.photoIds ?? [], &validation)
        if request.draft != true { validation.check(!photos.isEmpty, "data.photoIds", "a published listing needs at least one photo") }
        try validation.finish()
        let values = ListingStore.Values(
            title: title ?? "", description: description ?? "", priceMinorUnits: request.priceMinorUnits, category: request.category,
            condition: request.condition, campus: request.campus)
        return (values, photos, request)
    }

    @Sendable
    func create(_ prepared: Prepared, _ context: RequestContext, on connection: PostgresConnection) async throws -> MarketplaceChat.Listing {
        let caller = try await access.caller(context, recording: true, on: connection)
        try await checkPlace(prepared.values, in: caller.network.university, on: connection)
        try await database.hit(Self.creations, [.account(caller.account.uuidString)], at: database.now(), on: connection)
        let id = try await listings.create(
            prepared.values, seller: caller.account, network: caller.network, publish: prepared.request.draft != true,
            lifetime: MarketplaceChat.Bounds.listingLifetime, on: connection)
        try await photos.attach(prepared.photos, to: id, seller: caller.account, field: "data.photoIds", on: connection)
        let listing = try await own(id, on: connection)
        if listing.view.state == .active { try await follows.announce(listing, on: connection) }
        return listing.view
    }

    @Sendable
    func get(_ request: MarketplaceChat.Listings.Reference, _ context: RequestContext) async throws -> MarketplaceChat.Listing {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            let row = try await visible(request.listingId, caller, on: connection)
            return row.seller == caller.account ? try await withInterest([row], on: connection)[0] : row.view
        }
    }

    /// The seller's views of `rows`, each with how many buyers asked about it (MC-19).
    private func withInterest(_ rows: [ListingStore.Row], on connection: PostgresConnection) async throws -> [MarketplaceChat.Listing] {
        let interest = try await conversations.interest(in: rows.map(\.id), on: connection)
        return rows.map { row in
            var view = row.view
            view.interested = interest[row.id] ?? 0
            return view
        }
    }

    @Sendable
    func update(_ request: MarketplaceChat.Listings.Update.Request, _ context: RequestContext) async throws -> MarketplaceChat.Listing {
        var validation = Validation()
        let title = request.title.map { validation.checkText($0, "data.title", MarketplaceChat.Bounds.title) ?? "" }
        let description = request.description.map { validation.checkText($0, "data.description", MarketplaceChat.Bounds.description, newlines: true) ?? "" }
        if let price = request.priceMinorUnits { Self.checkPrice(price, &validation) }
        let photoIDs = request.photoIds.map { Self.photoIDs($0, &validation) }
        try validation.finish()
        return try await database.transaction { connection in
            let caller = try await access.caller(context, recording: true, on: connection)
            let old = try await sellers(request.listingId, caller, on: connection)
            // A reserved listing is held at the agreed price: not changed under its buyer.
            guard [.draft, .active, .expired].contains(old.view.state) else {
                throw OperationError(.conflict, "a listing \(old.view.state.rawValue) can no longer be changed")
            }
            guard old.view.version == request.version else {
                throw OperationError.staleVersion(of: old.view, read: request.version, current: old.view.version, "listing")
            }
            var values = old.values
            values.title = title ?? values.title
            values.description = description ?? values.description
            values.priceMinorUnits = request.priceMinorUnits ?? values.priceMinorUnits
            values.category = request.category ?? values.category
            values.condition = request.condition ?? values.condition
            values.campus = request.campus ?? values.campus
            try await checkPlace(values, in: old.university, on: connection)
            if let photoIDs {
                if photoIDs.isEmpty, old.view.state != .draft {
                    throw OperationError.invalid(field: "data.photoIds", "a published listing keeps at least one photo")
                }
                try await photos.attach(photoIDs, to: old.id, seller: caller.account, field: "data.photoIds", on: connection)
            }
            try await listings.update(old.id, to: values, on: connection)
            return try await own(old.id, on: connection).view
        }
    }

    @Sendable
    func publish(_ request: MarketplaceChat.Listings.Reference, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> MarketplaceChat.Listing
    {
        let caller = try await access.caller(context, recording: true, on: connection)
        let old = try await sellers(request.listingId, caller, on: connection)
        switch old.view.state {
        case .draft, .expired:
            break
        case .active:
            let from = (old.view.expiresAt ?? database.now()).adding(.zero - MarketplaceChat.Bounds.renewWithin)
            guard database.now() >= from else {
                throw OperationError(.conflict, "an active listing is renewed in its last 7 days: from \(RFC3339.string(from: from))")
            }
        default:
            throw OperationError(.conflict, "a listing \(old.view.state.rawValue) cannot be published")
        }
        guard !old.view.photoIds.isEmpty else { throw OperationError(.conflict, "add at least one photo before publishing") }
        try await listings.publish(old.id, title: old.values.title, in: old.university, lifetime: MarketplaceChat.Bounds.listingLifetime, on: connection)
        let listing = try await own(old.id, on: connection)
        // Its first publication is news; a renewal or a second life is not.
        if old.view.publishedAt == nil { try await follows.announce(listing, on: connection) }
        return listing.view
    }

    @Sendable
    func sell(_ request: MarketplaceChat.Listings.Sell.Request, _ context: RequestContext) async throws -> MarketplaceChat.Listing {
        try await database.transaction { connection in
            let caller = try await access.caller(context, recording: true, on: connection)
            let old = try await sellers(request.listingId, caller, on: connection)
            switch old.view.state {
            case .sold: return old.view
            case .active, .reserved: break
            default: throw OperationError(.conflict, "only a listing for sale can be marked sold; this one is \(old.view.state.rawValue)")
            }
            var buyer: UUID?
            if let conversation = request.conversationId {
                // The buyer of one of this listing's conversations, still a member.
                guard let id = UUID(uuidString: conversation), let found = try await conversations.buyer(in: id, about: old.id, on: connection) else {
                    throw OperationError.invalid(field: "data.conversationId", "is not a conversation about this listing with a buyer")
                }
                buyer = found
            }
            // A listing reserved by an accepted offer is sold to its buyer unless a conversation says otherwise.
            if buyer == nil { buyer = try await offers.reservedBuyer(of: old.id, on: connection) }
            try await listings.move(old.id, to: .sold, on: connection)
            if let buyer { try await listings.sold(old.id, to: buyer, on: connection) }
            // The buyers whose offers the sale declined hear of it.
            for declined in try await offers.settle(old.id, soldTo: buyer, on: connection) {
                try await offers.tell(declined.buyer, "Sold to someone else", offer: declined.offer, listing: old.id, title: old.view.title, on: connection)
            }
            return try await own(old.id, on: connection).view
        }
    }

    @Sendable
    func remove(_ request: MarketplaceChat.Listings.Reference, _ context: RequestContext) async throws -> MarketplaceChat.Listings.Remove.Response {
        try await database.transaction { connection in
            let caller = try await access.caller(context, recording: true, on: connection)
            guard let id = UUID(uuidString: request.listingId),
                  let old = try await listings.rows(where: "l.id = \(id) AND l.seller = \(caller.account)", orderedBy: " FOR UPDATE OF l", on: connection).first
            else { throw Self.notFound }
            guard old.view.state != .removed else { return .init(removed: false) }
            try await photos.deletePhotos(of: old.id, on: connection)
            try await listings.move(old.id, to: .removed, on: connection)
            return .init(removed: true)
        }
    }

    @Sendable
    func search(_ request: MarketplaceChat.Listings.Search.Request, _ context: RequestContext) async throws -> MarketplaceChat.Listings.Search.Response {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            let query = try FeedQuery(request, university: caller.network.university, viewer: caller.account, now: database.now())
            return try await query.page(on: connection, database: database)
        }
    }

    @Sendable
    func mine(_ request: MarketplaceChat.Listings.Mine.Request, _ context: RequestContext) async throws -> MarketplaceChat.Listings.Mine.Response {
        let limit = try request.page.checked()
        guard request.state != .removed else { throw OperationError.invalid(field: "data.state", "removed listings are gone from every read") }
        return try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            let rows = try await listings.mine(caller.account, state: request.state, limit: limit, before: request.after, on: connection)
            return .init(listings: try await withInterest(rows, on: connection), nextAfter: rows.count == limit ? rows.last?.number : nil)
        }
    }

    /// Whether `caller` may see `row`: its seller always (until removed); its network while it is
    /// for sale (and not past its time), reserved or sold.
    static func sees(_ row: ListingStore.Row, _ caller: MarketAccess.Caller, now: Date) -> Bool {
        if row.seller == caller.account { return true }
        guard row.university == caller.network.university else { return false }
        switch row.view.state {
        case .active: return (row.view.expiresAt ?? now) > now
        case .reserved, .sold: return true
        default: return false
        }
    }

    /// `sees`, no block between the caller and the seller, and the seller not out of sight by moderation.
    func sees(_ row: ListingStore.Row, _ caller: MarketAccess.Caller, on connection: PostgresConnection) async throws -> Bool {
        guard Self.sees(row, caller, now: database.now()) else { return false }
        if row.seller == caller.account { return true }
        guard try await !blocks.between(row.seller, caller.account, on: connection) else { return false }
        return try await !access.moderation.isOutOfSight(row.seller, on: connection)
    }

    func visible(_ id: String, _ caller: MarketAccess.Caller, locking: Bool = false, on connection: PostgresConnection) async throws -> ListingStore.Row {
        guard let id = UUID(uuidString: id), let row = try await listings.listing(id, locking: locking, on: connection),
              try await sees(row, caller, on: connection)
        else { throw Self.notFound }
        return row
    }

    /// The listing when the caller sells it; `not_found` for anyone else, as for an id that names
    /// nothing (what others may do with a listing they see goes through other routes).
    private func sellers(_ id: String, _ caller: MarketAccess.Caller, on connection: PostgresConnection) async throws -> ListingStore.Row {
        guard let id = UUID(uuidString: id), let row = try await listings.listing(id, locking: true, on: connection), row.seller == caller.account
        else { throw Self.notFound }
        return row
    }

    private func own(_ id: UUID, on connection: PostgresConnection) async throws -> ListingStore.Row {
        guard let row = try await listings.listing(id, on: connection) else { throw Self.notFound }
        return row
    }

    /// The category and campus must be the marketplace's and the network's.
    private func checkPlace(_ values: ListingStore.Values, in university: String, on connection: PostgresConnection) async throws {
        var validation = Validation()
        validation.check(try await traders.hasCategory(values.category, on: connection), "data.category", "is not one of the marketplace's categories")
        validation.check(try await traders.hasCampus(values.campus, in: university, on: connection), "data.campus", "is not one of your network's campuses")
        try validation.finish()
    }

    static func checkPrice(_ price: Int64, _ validation: inout Validation) {
        validation.check((0...MarketplaceChat.Bounds.priceMinorUnits).contains(price), "data.priceMinorUnits",
                         "must be from 0 (free) to \(MarketplaceChat.Bounds.priceMinorUnits)")
    }

    static func photoIDs(_ ids: [String], _ validation: inout Validation) -> [UUID] {
        let parsed = ids.compactMap { UUID(uuidString: $0) }
        validation.check(parsed.count == ids.count && Set(parsed).count == parsed.count && MarketplaceChat.Bounds.photos.contains(ids.count),
                         "data.photoIds", "must be up to \(MarketplaceChat.Bounds.photos.upperBound) different photo ids")
        return parsed
    }
}
