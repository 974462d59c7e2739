import Contracts
import Envelope
import Foundation

extension MarketplaceChat {
    /// The chat: conversations about listings in the marketplace app, private ones in the Nebula app.
    /// Each app sees its own kind only.
    public enum Conversations {
        public struct Reference: Codable, Sendable, Equatable, FieldRules {
            public var conversationId: String

            public init(conversationId: String) { self.conversationId = conversationId }

            public static let fieldRules: [String: FieldRule] = ["conversationId": .uuid]
        }

        /// `marketplace-chat.conversations.open.v1`
        public enum Open: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.conversations.open.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/conversations", name: "conversationOpen", access: .signedIn, errors: [.notFound, .forbidden, .rateLimited],
                summary: """
                    Opens a conversation, or finds the one already open: about a listing of the caller's network (marketplace app, \
                    listingId) or with a user by username (Nebula app)
                    """,
                example: #"{"listingId":"1a2b3c4d-0000-4e5f-8a9b-000000000001"}"#, apps: .only(.marketplace, .nebula))]
            public static let idempotency: Idempotency? = .repeatable(because: "opening again finds the same conversation")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var listingId: String?
                public var username: String?

                public init(listingId: String? = nil, username: String? = nil) {
                    self.listingId = listingId
                    self.username = username
                }

                public static let fieldRules: [String: FieldRule] = [
                    "listingId": FieldRule.uuid.described("in the marketplace app: the listing asked about (not one's own)"),
                    "username": FieldRule.text(1...40).described("in the Nebula app: whom to chat with"),
                ]
            }

            public typealias Response = Conversation
        }

        /// `marketplace-chat.conversations.ask.v1`
        public enum Ask: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.conversations.ask.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/marketplace/listings/{listingId}/ask", name: "marketplaceListingAsk", access: .signedIn, status: .created,
                errors: [.notFound, .forbidden, .conflict, .rateLimited],
                summary: "A buyer asks about a listing in one call: the conversation about it opens (or is found) with the question as its next message",
                example: #"{"text":"Is it still available? I could collect on Friday."}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var listingId: String
                public var text: String

                public init(listingId: String, text: String) {
                    self.listingId = listingId
                    self.text = text
                }

                public static let fieldRules: [String: FieldRule] = [
                    "listingId": FieldRule.uuid.described("the listing asked about (not one's own)"),
                    "text": FieldRule.text(MarketplaceChat.Bounds.messageText).described("the question"),
                ]
            }

            public typealias Response = Conversation
        }

        /// `marketplace-chat.conversations.list.v1`
        public enum List: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.conversations.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/conversations", name: "conversationList", access: .owner, errors: [.forbidden],
                summary: "The chat tab: the caller's conversations of this app, the latest activity first, with the last message and the unread count", apps: .only(.marketplace, .nebula))]

            public typealias Request = PageRequest

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var conversations: [Conversation]
                public var nextAfter: Int64?

                public init(conversations: [Conversation], nextAfter: Int64?) {
                    self.conversations = conversations
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }

        /// `marketplace-chat.conversations.get.v1`
        public enum Get: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.conversations.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/conversations/{conversationId}", name: "conversationGet", access: .owner, errors: [.notFound, .forbidden],
                summary: "One of the caller's conversations", apps: .only(.marketplace, .nebula))]
            public typealias Request = Reference
            public typealias Response = Conversation
        }

        /// `marketplace-chat.conversations.delete.v1`
        public enum Delete: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.conversations.delete.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/conversations/{conversationId}", name: "conversationDelete", access: .owner, errors: [.notFound, .forbidden],
                summary: "Deletes a conversation for the caller: its messages so far are gone for them; a new message brings it back", apps: .only(.marketplace, .nebula))]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat clears what is already cleared")
            public typealias Request = Reference

            public struct Response: Codable, Sendable, Equatable {
                public var deleted: Bool

                public init(deleted: Bool) { self.deleted = deleted }
            }
        }

        /// `marketplace-chat.conversations.timer.v1`
        public enum Timer: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.conversations.timer.v1"
            public static let http = [HTTPBinding(
                .put, "/v1/conversations/{conversationId}/timer", name: "conversationTimer", access: .owner, errors: [.notFound, .forbidden],
                summary: "Sets the disappearing-messages timer for messages sent from now on, announced in the conversation",
                example: #"{"seconds":30}"#, apps: .only(.marketplace, .nebula))]
            public static let idempotency: Idempotency? = .repeatable(because: "setting the timer in force again announces nothing")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var conversationId: String
                public var seconds: Int

                public init(conversationId: String, seconds: Int) {
                    self.conversationId = conversationId
                    self.seconds = seconds
                }

                public static let fieldRules: [String: FieldRule] = [
                    "conversationId": .uuid,
                    "seconds": FieldRule.oneOf(MarketplaceChat.timers).described("0 (off), 30 s, 5 min, 1 h, 1 day or 1 week, in seconds"),
                ]
            }

            public typealias Response = Conversation
        }
    }

    public enum Messages {
        /// `marketplace-chat.messages.send.v1`
        public enum Send: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.messages.send.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/conversations/{conversationId}/messages", name: "messageSend", access: .owner, status: .created,
                errors: [.notFound, .forbidden, .rateLimited],
                summary: "Sends text, a proposed meeting point or a location; sealed at rest, pushed to the other side without its content",
                example: #"{"text":"Is it still available? I could meet at the Arts Block tomorrow."}"#, apps: .only(.marketplace, .nebula))]
            /// The reply holds no content, so the stored reply keeps nothing of the message.
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var conversationId: String
                public var text: String?
                public var meeting: Meeting?
                public var location: Point?

                public init(conversationId: String, text: String? = nil, meeting: Meeting? = nil, location: Point? = nil) {
                    self.conversationId = conversationId
                    self.text = text
                    self.meeting = meeting
                    self.location = location
                }

                public static let fieldRules: [String: FieldRule] = [
                    "conversationId": .uuid, "text": FieldRule.text(MarketplaceChat.Bounds.messageText).described("exactly one of text, meeting, location"),
                ]
            }

            /// The message as sent, without its content.
            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var id: String
                public var seq: Int64
                public var sentAt: Date
                public var timerSeconds: Int
                public var expiresAt: Date?
                public var warning: Bool

                public init(id: String, seq: Int64, sentAt: Date, timerSeconds: Int, expiresAt: Date?, warning: Bool) {
                    self.id = id
                    self.seq = seq
                    self.sentAt = sentAt
                    self.timerSeconds = timerSeconds
                    self.expiresAt = expiresAt
                    self.warning = warning
                }

                public static let fieldRules: [String: FieldRule] = ["id": .uuid]
            }
        }

        /// `marketplace-chat.messages.list.v1`
        public enum List: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.messages.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/conversations/{conversationId}/messages", name: "messageList", access: .owner, errors: [.notFound, .forbidden],
                summary: "A conversation's history, the latest first, as far as the caller may still read it", apps: .only(.marketplace, .nebula))]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var conversationId: String
                public var limit: Int?
                public var after: Int64?

                public init(conversationId: String, limit: Int? = nil, after: Int64? = nil) {
                    self.conversationId = conversationId
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = PageRequest.fieldRules.merging(["conversationId": .uuid]) { $1 }
                public var page: PageRequest { PageRequest(limit: limit, after: after) }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var messages: [Message]
                public var nextAfter: Int64?

                public init(messages: [Message], nextAfter: Int64?) {
                    self.messages = messages
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }

        /// `marketplace-chat.messages.read.v1`
        public enum Read: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.messages.read.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/conversations/{conversationId}/read", name: "messageRead", access: .owner, errors: [.notFound, .forbidden],
                summary: "Marks the other side's messages read up to a number: their read receipts, and the start of each one's timer",
                example: #"{"throughSeq":12}"#, apps: .only(.marketplace, .nebula))]
            public static let idempotency: Idempotency? = .repeatable(because: "what is read stays read; a lower number changes nothing")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var conversationId: String
                public var throughSeq: Int64

                public init(conversationId: String, throughSeq: Int64) {
                    self.conversationId = conversationId
                    self.throughSeq = throughSeq
                }

                public static let fieldRules: [String: FieldRule] = [
                    "conversationId": .uuid, "throughSeq": FieldRule.range(1...Int64.max).described("the number of the latest message shown"),
                ]
            }

            public struct Response: Codable, Sendable, Equatable {
                /// The caller has read the other side's messages up to this number.
                public var readThrough: Int64

                public init(readThrough: Int64) { self.readThrough = readThrough }
            }
        }

        /// `marketplace-chat.messages.answer.v1`
        public enum Answer: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.messages.answer.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/conversations/{conversationId}/messages/{messageId}/answer", name: "meetingAnswer", access: .owner,
                errors: [.notFound, .forbidden, .conflict],
                summary: "Accepts or declines a meeting the other side proposed, once: accepted, it is agreed by both; both sides see the answer live",
                example: #"{"answer":"accepted"}"#, apps: .only(.marketplace, .nebula))]
            public static let idempotency: Idempotency? = .repeatable(because: "the same answer again changes nothing; another answer is a conflict")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var conversationId: String
                public var messageId: String
                public var answer: MeetingAnswer

                public init(conversationId: String, messageId: String, answer: MeetingAnswer) {
                    self.conversationId = conversationId
                    self.messageId = messageId
                    self.answer = answer
                }

                public static let fieldRules: [String: FieldRule] = [
                    "conversationId": .uuid, "messageId": FieldRule.uuid.described("a meeting the other side proposed"),
                    "answer": FieldRule.oneOf(["accepted", "declined"]).described("accepted or declined"),
                ]
            }

            public typealias Response = Message
        }

        /// `marketplace-chat.messages.delete.v1`
        public enum Delete: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.messages.delete.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/conversations/{conversationId}/messages/{messageId}", name: "messageDelete", access: .owner,
                errors: [.notFound, .forbidden], summary: "Deletes one of the caller's messages for both sides: its content is gone from the database", apps: .only(.marketplace, .nebula))]
            public static let idempotency: Idempotency? = .repeatable(because: "a deleted message stays deleted")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var conversationId: String
                public var messageId: String

                public init(conversationId: String, messageId: String) {
                    self.conversationId = conversationId
                    self.messageId = messageId
                }

                public static let fieldRules: [String: FieldRule] = ["conversationId": .uuid, "messageId": .uuid]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var deleted: Bool

                public init(deleted: Bool) { self.deleted = deleted }
            }
        }
    }
}
