import Contracts
import Envelope
import Foundation

extension MarketplaceChat {
    /// A safe place on a campus to meet for a deal (a staffed entrance, a lit public hall), as data.
    public struct Spot: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var campus: String
        public var name: String
        public var description: String
        public var latitude: Double
        public var longitude: Double
        /// When it is staffed or open, in words.
        public var hours: String

        public init(id: String, campus: String, name: String, description: String, latitude: Double, longitude: Double, hours: String) {
            self.id = id
            self.campus = campus
            self.name = name
            self.description = description
            self.latitude = latitude
            self.longitude = longitude
            self.hours = hours
        }

        public static let fieldRules: [String: FieldRule] = ["latitude": .described("WGS 84 degrees"), "longitude": .described("WGS 84 degrees")]
    }

    /// Someone the caller blocked.
    public struct Blocked: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        /// Absent when they never traded on the marketplace.
        public var username: String?
        public var at: Date

        public init(id: String, username: String?, at: Date) {
            self.id = id
            self.username = username
            self.at = at
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid]
    }

    public enum Spots {
        /// `marketplace-chat.spots.list.v1`
        public enum List: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.spots.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/marketplace/spots", name: "marketplaceSpots", access: .signedIn, errors: [.forbidden],
                summary: "The safe meeting spots of the caller's network (or one campus), for the map of a deal")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var campus: String?

                public init(campus: String? = nil) { self.campus = campus }

                public static let fieldRules: [String: FieldRule] = ["campus": FieldRule.text(1...64).described("one of the network's campuses; all when left out")]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var spots: [Spot]

                public init(spots: [Spot]) { self.spots = spots }
            }
        }
    }

    public enum Blocks {
        public struct Reference: Codable, Sendable, Equatable, FieldRules {
            public var accountId: String

            public init(accountId: String) { self.accountId = accountId }

            public static let fieldRules: [String: FieldRule] = ["accountId": FieldRule.uuid.described("the account to block (a trader's id)")]
        }

        public struct Outcome: Codable, Sendable, Equatable {
            /// Whether the caller blocks them now.
            public var blocked: Bool

            public init(blocked: Bool) { self.blocked = blocked }
        }

        /// `marketplace-chat.blocks.set.v1`
        public enum Set: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.blocks.set.v1"
            public static let http = [HTTPBinding(
                .put, "/v1/marketplace/blocks/{accountId}", name: "marketplaceBlock", access: .signedIn, errors: [.forbidden],
                summary: "Blocks an account: each no longer sees the other's listings or name anywhere on the marketplace")]
            public static let idempotency: Idempotency? = .repeatable(because: "blocking again keeps the block")
            public typealias Request = Reference
            public typealias Response = Outcome
        }

        /// `marketplace-chat.blocks.remove.v1`
        public enum Remove: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.blocks.remove.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/marketplace/blocks/{accountId}", name: "marketplaceUnblock", access: .signedIn, errors: [.forbidden],
                summary: "Lifts a block the caller set")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds no block")
            public typealias Request = Reference
            public typealias Response = Outcome
        }

        /// `marketplace-chat.blocks.list.v1`
        public enum List: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.blocks.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/marketplace/blocks", name: "marketplaceBlocks", access: .owner, errors: [.forbidden],
                summary: "Those the caller blocked, the latest first")]
            public typealias Request = Empty

            public struct Response: Codable, Sendable, Equatable {
                public var blocked: [Blocked]

                public init(blocked: [Blocked]) { self.blocked = blocked }
            }
        }
    }

    /// Blocks from either chat app (Nebula has no marketplace): the same blocks, which hold everywhere.
    public enum ChatBlocks {
        /// `marketplace-chat.chat-blocks.set.v1`
        public enum Set: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.chat-blocks.set.v1"
            public static let http = [HTTPBinding(
                .put, "/v1/chat/blocks/{accountId}", name: "chatBlock", access: .signedIn, errors: [.forbidden, .rateLimited],
                summary: "Blocks an account from a chat app (a conversation's other side): each no longer finds, sees or messages the other, in either app", apps: .only(.marketplace, .nebula))]
            public static let idempotency: Idempotency? = .repeatable(because: "blocking again keeps the block")
            public typealias Request = Blocks.Reference
            public typealias Response = Blocks.Outcome
        }

        /// `marketplace-chat.chat-blocks.remove.v1`
        public enum Remove: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.chat-blocks.remove.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/chat/blocks/{accountId}", name: "chatUnblock", access: .signedIn, errors: [.forbidden],
                summary: "Lifts a block the caller set", apps: .only(.marketplace, .nebula))]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds no block")
            public typealias Request = Blocks.Reference
            public typealias Response = Blocks.Outcome
        }

        /// `marketplace-chat.chat-blocks.list.v1`
        public enum List: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.chat-blocks.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/chat/blocks", name: "chatBlocks", access: .owner, errors: [.forbidden],
                summary: "Those the caller blocked, the latest first, by the name they chat under", apps: .only(.marketplace, .nebula))]
            public typealias Request = Empty
            public typealias Response = Blocks.List.Response
        }
    }
}
