import Contracts
import Foundation

extension MarketplaceChat {
    /// One side's position, shared live with the other side of a conversation.
    public struct LiveLocation: Codable, Sendable, Equatable {
        public var point: Point
        public var startedAt: Date
        public var updatedAt: Date
        /// When it stops being served: at most an hour after `startedAt`.
        public var expiresAt: Date

        public init(point: Point, startedAt: Date, updatedAt: Date, expiresAt: Date) {
            self.point = point
            self.startedAt = startedAt
            self.updatedAt = updatedAt
            self.expiresAt = expiresAt
        }
    }

    /// A conversation's live locations: each side's, while shared and not expired.
    public struct LiveLocations: Codable, Sendable, Equatable {
        public var mine: LiveLocation?
        public var theirs: LiveLocation?

        public init(mine: LiveLocation? = nil, theirs: LiveLocation? = nil) {
            self.mine = mine
            self.theirs = theirs
        }
    }

    /// The live stream's `location` event: the other side's live location, or none when they stopped.
    public struct LiveLocationChange: Codable, Sendable, Equatable {
        public var conversationId: String
        public var location: LiveLocation?

        public init(conversationId: String, location: LiveLocation?) {
            self.conversationId = conversationId
            self.location = location
        }
    }

    public enum Locations {
        static let path = "/v1/conversations/{conversationId}/live-location"

        /// `marketplace-chat.live-locations.share.v1`
        public enum Share: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.live-locations.share.v1"
            public static let http = [HTTPBinding(
                .put, path, name: "liveLocationShare", access: .owner, errors: [.notFound, .forbidden, .rateLimited],
                summary: "Shares the caller's position with the other side, live, for up to an hour from the share's start (each call moves it)",
                example: #"{"point":{"latitude":53.3446,"longitude":-6.259},"minutes":30}"#, apps: .only(.marketplace, .nebula))]
            public static let idempotency: Idempotency? = .repeatable(because: "the same position again changes only when it was sent")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var conversationId: String
                public var point: Point
                /// How long from now to keep sharing: 1 to 60 minutes, never past an hour after the start
                /// (a new share: 60 when absent; an update keeps its expiry when absent).
                public var minutes: Int?

                public init(conversationId: String, point: Point, minutes: Int? = nil) {
                    self.conversationId = conversationId
                    self.point = point
                    self.minutes = minutes
                }

                public static let fieldRules: [String: FieldRule] = [
                    "conversationId": .uuid,
                    "minutes": FieldRule.range(Bounds.liveLocationMinutes).described("minutes from now to keep sharing, at most an hour from the start"),
                ]
            }

            public typealias Response = LiveLocations
        }

        /// `marketplace-chat.live-locations.get.v1`
        public enum Get: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.live-locations.get.v1"
            public static let http = [HTTPBinding(
                .get, path, name: "liveLocations", access: .owner, errors: [.notFound, .forbidden],
                summary: "Both sides' live locations in a conversation, while shared and not expired", apps: .only(.marketplace, .nebula))]
            public typealias Request = Conversations.Reference
            public typealias Response = LiveLocations
        }

        /// `marketplace-chat.live-locations.stop.v1`
        public enum Stop: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.live-locations.stop.v1"
            public static let http = [HTTPBinding(
                .delete, path, name: "liveLocationStop", access: .owner, errors: [.notFound, .forbidden],
                summary: "Stops sharing the caller's live location: it leaves the database at once", apps: .only(.marketplace, .nebula))]
            public static let idempotency: Idempotency? = .repeatable(because: "a stopped share stays stopped")
            public typealias Request = Conversations.Reference
            public typealias Response = LiveLocations
        }
    }
}
