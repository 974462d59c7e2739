import Contracts
import Envelope
import Foundation

extension MarketplaceChat {
    /// The chat's live stream (`/v1/live/chat`): what happens in the caller's conversations, as it
    /// happens, to every socket of the account.
    public static let chatStream = LiveStream(
        name: "chat", service: name,
        summary: "New messages, read receipts and deletions in the caller's conversations (both apps'), each with a cursor to resume from",
        events: [
            LiveEventDeclaration(type: "message", summary: "a message in one of the caller's conversations (the caller's own too, for their other devices), again when a proposed meeting is answered",
                                 data: LiveMessage.self),
            LiveEventDeclaration(type: "read", summary: "the other side read the caller's messages up to a number (a read receipt)", data: LiveRead.self),
            LiveEventDeclaration(type: "deleted", summary: "a message was deleted for both", data: LiveDeleted.self),
            LiveEventDeclaration(type: "location", summary: "the other side's live location moved, or stopped (no location)", data: LiveLocationChange.self),
        ],
        sync: Live.Sync.self, apps: .only(.marketplace, .nebula))

    public static let liveStreams = [chatStream]

    public struct LiveMessage: Codable, Sendable, Equatable {
        public var conversationId: String
        public var kind: ConversationKind
        public var message: Message

        public init(conversationId: String, kind: ConversationKind, message: Message) {
            self.conversationId = conversationId
            self.kind = kind
            self.message = message
        }
    }

    public struct LiveRead: Codable, Sendable, Equatable {
        public var conversationId: String
        public var readThrough: Int64

        public init(conversationId: String, readThrough: Int64) {
            self.conversationId = conversationId
            self.readThrough = readThrough
        }
    }

    public struct LiveDeleted: Codable, Sendable, Equatable {
        public var conversationId: String
        public var messageId: String

        public init(conversationId: String, messageId: String) {
            self.conversationId = conversationId
            self.messageId = messageId
        }
    }

    public enum Live {
        /// `marketplace-chat.live-chat.sync.v1`: the gateway's catch-up of a chat socket.
        public enum Sync: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.live-chat.sync.v1"
            public static let idempotency: Idempotency? = .repeatable(because: "it reads the log and says the socket is open or closed")
            public typealias Request = LiveSync.Request
            public typealias Response = LiveSync.Response
        }
    }
}
