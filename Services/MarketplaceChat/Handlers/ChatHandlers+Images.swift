import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import Media
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.messages.send-image.v1` and `.image.v1`: pictures sent in chat. Each is checked and re-encoded by the
/// kit's media store, its files sealed under the conversation's key, and it goes with its message.
extension ChatHandlers {
    /// Each picture is decoded and re-encoded: one sends at most this many an hour (and each counts
    /// as a message too).
    static let pictures = RateLimit("chat.images", count: 60, per: .seconds(3_600), message: "too many pictures this hour; try again later")

    static let noImage = OperationError(
        .notFound, "data.messageId: there is no such picture here", fields: [.init(field: "data.messageId", message: "is not a picture you may see here")])

    /// Outside the transaction: the caller is a side of the conversation and within the limit, and the
    /// image is checked and re-encoded before any row is written.
    @Sendable
    func prepareImage(_ request: MarketplaceChat.Messages.SendImage.Request, _ context: RequestContext) async throws
        -> (conversationId: String, image: ProcessedImage)
    {
        try await database.transaction { connection in
            let (caller, _) = try await member(request.conversationId, context, on: connection)
            try await database.hit(Self.pictures, [.account(caller.account.uuidString)], at: database.now(), on: connection)
        }
        return (request.conversationId, try await messages.media.process(request.content, mediaType: request.mediaType))
    }

    @Sendable
    func sendImage(_ prepared: (conversationId: String, image: ProcessedImage), _ context: RequestContext, on connection: PostgresConnection)
        async throws -> MarketplaceChat.Messages.Send.Response
    {
        let (caller, membership) = try await member(prepared.conversationId, context, recording: true, locking: true, on: connection)
        let kept = try await messages.images(of: membership.conversation, on: connection).keep(prepared.image, account: caller.account, on: connection)
        let facts = MarketplaceChat.MessageImage(mediaType: kept.full.mediaType, width: kept.full.width, height: kept.full.height, size: kept.full.size)
        return try await deliver(.init(image: facts), image: kept.id, from: caller, in: membership, context, on: connection)
    }

    @Sendable
    func image(_ request: MarketplaceChat.Messages.Image.Request, _ context: RequestContext) async throws -> MediaFile {
        try await database.transaction { connection in
            let (caller, membership) = try await member(request.conversationId, context, on: connection)
            guard let id = UUID(uuidString: request.messageId),
                  let record = try await messages.image(id, in: membership.conversation, of: caller.account, on: connection)
            else { throw Self.noImage }
            let library = try await messages.images(of: membership.conversation, on: connection)
            return try await library.file(record, request.size ?? .full, ifNoneMatch: request.ifNoneMatch, on: connection)
        }
    }
}
