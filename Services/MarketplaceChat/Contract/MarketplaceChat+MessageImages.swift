import Contracts
import Envelope
import Foundation

extension MarketplaceChat.Messages {
    /// `marketplace-chat.messages.send-image.v1`
    public enum SendImage: OperationDeclaration {
        public static let service = MarketplaceChat.name
        public static let type = "marketplace-chat.messages.send-image.v1"
        public static let http = [HTTPBinding(
            .post, "/v1/conversations/{conversationId}/images", name: "messageSendImage", access: .owner, status: .created,
            errors: [.notFound, .forbidden, .tooLarge, .rateLimited],
            summary: """
                Sends a picture: the image itself as the body (JPEG, PNG, WebP or HEIC, at most 5 MiB), kept without its metadata and \
                sealed at rest under the conversation's key; it disappears with its message (60 an hour)
                """,
            upload: .image, apps: .only(.marketplace, .nebula))]
        /// The reply holds no content, so the stored reply keeps nothing of the picture.
        public static let idempotency: Idempotency? = .stored()

        public struct Request: Codable, Sendable, Equatable, FieldRules {
            public var conversationId: String
            /// The body's Content-Type.
            public var mediaType: String
            /// The body.
            public var content: Data

            public init(conversationId: String, mediaType: String, content: Data) {
                self.conversationId = conversationId
                self.mediaType = mediaType
                self.content = content
            }

            public static let fieldRules: [String: FieldRule] = ImageUpload.fieldRules.merging(["conversationId": .uuid]) { $1 }
        }

        public typealias Response = Send.Response
    }

    /// `marketplace-chat.messages.image.v1`
    public enum Image: OperationDeclaration {
        public static let service = MarketplaceChat.name
        public static let type = "marketplace-chat.messages.image.v1"
        public static let http = [HTTPBinding(
            .get, "/v1/conversations/{conversationId}/messages/{messageId}/image", name: "messageImage", access: .owner,
            errors: [.notFound, .forbidden],
            summary: "A picture sent in chat or its thumbnail (size=thumbnail), for the two sides while the message is theirs to read",
            file: .image(), apps: .only(.marketplace, .nebula))]

        public struct Request: Codable, Sendable, Equatable, FieldRules {
            public var conversationId: String
            public var messageId: String
            public var size: ImageVariant?
            /// The request's `If-None-Match` (the gateway copies the header).
            public var ifNoneMatch: String?

            public init(conversationId: String, messageId: String, size: ImageVariant? = nil, ifNoneMatch: String? = nil) {
                self.conversationId = conversationId
                self.messageId = messageId
                self.size = size
                self.ifNoneMatch = ifNoneMatch
            }

            public static let fieldRules: [String: FieldRule] = [
                "conversationId": .uuid, "messageId": FieldRule.uuid.described("a picture message"), "size": ImageVariant.fieldRule,
                "ifNoneMatch": .undocumented,
            ]
        }

        public typealias Response = MediaFile
    }
}
