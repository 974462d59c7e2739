import Bus
import Contracts
import Envelope
import Foundation
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// `payments.bookmarks.*`: campaigns one keeps an eye on.
struct BookmarkHandlers: Sendable {
    let database: Database
    let bookmarks: BookmarkStore
    let campaigns: CampaignStore
    let access: FundraisingAccess

    @Sendable
    func set(_ request: Payments.CampaignReference, _ context: RequestContext) async throws -> Payments.Campaign {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            guard let id = UUID(uuidString: request.campaignId), try await campaigns.campaign(id, viewer: caller, on: connection) != nil else {
                throw CampaignHandlers.notFound
            }
            guard try await bookmarks.set(id, for: caller, on: connection) else {
                throw OperationError(.rateLimited, "you keep \(BookmarkStore.most) bookmarks already: remove one first")
            }
            guard let row = try await campaigns.campaign(id, viewer: caller, on: connection) else { throw CampaignHandlers.notFound }
            return row.view
        }
    }

    @Sendable
    func remove(_ request: Payments.CampaignReference, _ context: RequestContext) async throws -> Payments.Bookmarks.Remove.Response {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            guard let id = UUID(uuidString: request.campaignId) else { return .init(removed: false) }
            return .init(removed: try await bookmarks.remove(id, for: caller, on: connection))
        }
    }

    @Sendable
    func list(_ request: PageRequest, _ context: RequestContext) async throws -> Payments.CampaignPage {
        let limit = try request.checked()
        return try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            let page = try await bookmarks.list(of: caller, before: request.after, limit: limit, on: connection)
            return .init(campaigns: page.map(\.campaign), nextAfter: page.count == limit ? page.last?.seq : nil)
        }
    }
}
