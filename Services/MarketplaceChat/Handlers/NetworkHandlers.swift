import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.network.get.v1`, `marketplace-chat.traders.search.v1` and the account's
/// erasure: what a network is, who trades on it, and forgetting someone who left.
struct NetworkHandlers: Sendable {
    let database: Database
    let traders: TraderStore
    let photos: PhotoStore
    let blocks: BlockStore
    let follows: FollowStore
    let conversations: ConversationStore
    let reviews: ReviewStore
    let offers: OfferStore
    let moderation: ModerationStore
    let access: MarketAccess

    @Sendable
    func network(_ request: Empty, _ context: RequestContext) async throws -> MarketplaceChat.Network.Get.Response {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            let university = caller.network.university
            return .init(
                university: university, currency: caller.network.currency, campuses: try await traders.campuses(of: university, on: connection),
                categories: try await traders.categories(on: connection), conditions: MarketplaceChat.Condition.allCases)
        }
    }

    @Sendable
    func searchTraders(_ request: MarketplaceChat.Traders.Search.Request, _ context: RequestContext) async throws
        -> MarketplaceChat.Traders.Search.Response
    {
        var validation = Validation()
        let query = validation.checkText(request.q, "data.q", 1...40)
        let limit = request.limit ?? PageRequest.defaultLimit
        validation.check(PageRequest.limits.contains(limit), "data.limit", "must be from 1 to \(PageRequest.limits.upperBound)")
        validation.check(query != nil || !validation.isValid, "data.q", "must not be empty")
        try validation.finish()
        return try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            return .init(traders: try await traders.search(query ?? "", in: caller.network.university, by: caller.account, limit: limit, on: connection))
        }
    }

    /// Deletes the account's photos, the pictures it sent in chat, its listings and name; its side of each conversation is left
    /// without an account (its messages stay, from "a deleted user"), and a conversation left with
    /// no one goes with its key. Its reviews stay, counted and shown as they were, without its name or
    /// words; the reviews of it go. A repeat finds nothing.
    @Sendable
    func erase(_ request: AccountErasure, _ context: RequestContext) async throws -> MarketplaceChat.Account.Erase.Response {
        guard let account = UUID(uuidString: request.account) else { throw OperationError.invalid(field: "data.account", "must be an account id") }
        return try await database.transaction { connection in
            let photosDeleted = try await photos.deleteUploads(of: account, on: connection)
            // What is left of its uploads: the pictures it sent in chat (their messages keep no picture).
            let picturesDeleted = try await database.forgetMedia(of: account, blobs: photos.media.blobs, on: connection)
            let rows = try await connection.query(
                "WITH gone AS (DELETE FROM listings WHERE seller = \(account) RETURNING 1) SELECT count(*) FROM gone", logger: database.logger)
            let listingsDeleted = try await rows.decode(Int.self).first { _ in true } ?? 0
            try await blocks.forget(account, on: connection)
            try await follows.forget(account, on: connection)
            try await reviews.erase(account, on: connection)
            try await offers.erase(account, on: connection)
            try await moderation.erase(account, on: connection)
            let conversationsDeleted = try await conversations.erase(account, on: connection)
            for conversation in conversationsDeleted { try await database.forgetAccountKey(conversation, on: connection) }
            try await connection.query("DELETE FROM traders WHERE account_id = \(account)", logger: database.logger)
            context.logger.notice(
                "account erased",
                metadata: [
                    "listings": "\(listingsDeleted)", "photos": "\(photosDeleted)", "pictures": "\(picturesDeleted)",
                    "conversations": "\(conversationsDeleted.count)",
                ])
            return .init(listingsDeleted: listingsDeleted, photosDeleted: photosDeleted)
        }
    }
}
