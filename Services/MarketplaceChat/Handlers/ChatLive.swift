import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport
import ServiceKit

/// The chat's live stream: what its log's items refer to, and how each is rendered for its account.
enum ChatLive {
    /// A message, by conversation and number.
    struct MessageRef: Codable { var c: UUID; var s: Int64 }
    /// A read receipt: the other side read up to `t`.
    struct ReadRef: Codable { var c: UUID; var t: Int64 }
    /// A message deleted for both.
    struct DeletedRef: Codable { var c: UUID; var m: UUID }
    /// A side's live location moved or stopped.
    struct LocationRef: Codable { var c: UUID; var d: Int16 }

    static func log(database: Database, conversations: ConversationStore, messages: MessageStore, locations: LiveLocationStore) -> LiveLog {
        LiveLog(MarketplaceChat.chatStream, database: database) { type, ref, account, connection in
            let codec = EnvelopeCodec()
            let data: any Encodable
            switch type {
            case "message":
                let ref = try codec.decode(MessageRef.self, from: ref)
                guard let kind = try await conversations.kind(of: ref.c, on: connection),
                      let message = try await messages.messages(in: ref.c, of: account, before: nil, only: ref.s, limit: 1, on: connection).first
                else { return nil }
                data = MarketplaceChat.LiveMessage(conversationId: ListingStore.text(ref.c), kind: kind, message: message)
            case "read":
                let ref = try codec.decode(ReadRef.self, from: ref)
                data = MarketplaceChat.LiveRead(conversationId: ListingStore.text(ref.c), readThrough: ref.t)
            case "deleted":
                let ref = try codec.decode(DeletedRef.self, from: ref)
                data = MarketplaceChat.LiveDeleted(conversationId: ListingStore.text(ref.c), messageId: ListingStore.text(ref.m))
            case "location":
                let ref = try codec.decode(LocationRef.self, from: ref)
                data = MarketplaceChat.LiveLocationChange(
                    conversationId: ListingStore.text(ref.c), location: try await locations.theirs(in: ref.c, viewer: account, on: connection))
            default:
                return nil
            }
            return try JSONValue.parse(codec.encode(data))
        }
    }
}
