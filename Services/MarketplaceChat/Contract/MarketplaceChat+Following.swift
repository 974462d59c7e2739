import Contracts
import Envelope
import Foundation

extension MarketplaceChat {
    /// A search kept by its owner: a new listing of their network that it finds is pushed to them.
    public struct SavedSearch: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var q: String?
        public var category: String?
        public var campus: String?
        public var condition: Condition?
        public var minPrice: Int64?
        public var maxPrice: Int64?
        public var free: Bool?
        public var createdAt: Date

        public init(id: String, q: String?, category: String?, campus: String?, condition: Condition?, minPrice: Int64?, maxPrice: Int64?,
                    free: Bool?, createdAt: Date) {
            self.id = id
            self.q = q
            self.category = category
            self.campus = campus
            self.condition = condition
            self.minPrice = minPrice
            self.maxPrice = maxPrice
            self.free = free
            self.createdAt = createdAt
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid]
    }

    public enum Following {
        public struct Reference: Codable, Sendable, Equatable, FieldRules {
            public var accountId: String

            public init(accountId: String) { self.accountId = accountId }

            public static let fieldRules: [String: FieldRule] = ["accountId": FieldRule.uuid.described("a trader of the caller's network")]
        }

        public struct Outcome: Codable, Sendable, Equatable {
            /// Whether the caller follows them now.
            public var following: Bool

            public init(following: Bool) { self.following = following }
        }

        /// `marketplace-chat.following.set.v1`
        public enum Set: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.following.set.v1"
            public static let http = [HTTPBinding(
                .put, "/v1/marketplace/following/{accountId}", name: "marketplaceFollow", access: .signedIn, errors: [.notFound, .forbidden],
                summary: "Follows a seller of the caller's network: each listing they publish is pushed to the caller")]
            public static let idempotency: Idempotency? = .repeatable(because: "following again keeps following")
            public typealias Request = Reference
            public typealias Response = Outcome
        }

        /// `marketplace-chat.following.remove.v1`
        public enum Remove: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.following.remove.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/marketplace/following/{accountId}", name: "marketplaceUnfollow", access: .signedIn, errors: [.forbidden],
                summary: "Stops following a seller")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds nothing to stop")
            public typealias Request = Reference
            public typealias Response = Outcome
        }

        /// `marketplace-chat.following.list.v1`
        public enum List: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.following.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/marketplace/following", name: "marketplaceFollowing", access: .owner, errors: [.forbidden],
                summary: "The sellers the caller follows, by username")]
            public typealias Request = Empty

            public struct Response: Codable, Sendable, Equatable {
                public var traders: [Trader]

                public init(traders: [Trader]) { self.traders = traders }
            }
        }
    }

    public enum SavedSearches {
        /// `marketplace-chat.saved-searches.create.v1`
        public enum Create: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.saved-searches.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/marketplace/saved-searches", name: "marketplaceSavedSearchCreate", access: .signedIn, status: .created,
                errors: [.forbidden, .conflict],
                summary: "Keeps a search (the feed's filters and words, at least one): each new listing it finds is pushed to the caller (20 at most)",
                example: #"{"q":"calculus","maxPrice":3000}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var q: String?
                public var category: String?
                public var campus: String?
                public var condition: Condition?
                public var minPrice: Int64?
                public var maxPrice: Int64?
                public var free: Bool?

                public init(q: String? = nil, category: String? = nil, campus: String? = nil, condition: Condition? = nil, minPrice: Int64? = nil,
                            maxPrice: Int64? = nil, free: Bool? = nil) {
                    self.q = q
                    self.category = category
                    self.campus = campus
                    self.condition = condition
                    self.minPrice = minPrice
                    self.maxPrice = maxPrice
                    self.free = free
                }

                public static let fieldRules: [String: FieldRule] = [
                    "q": FieldRule.text(Bounds.query).described("words of the title or description"),
                    "category": .text(1...40), "campus": .text(1...64),
                    "minPrice": FieldRule.range(0...Bounds.priceMinorUnits).described("in minor units"),
                    "maxPrice": FieldRule.range(0...Bounds.priceMinorUnits).described("in minor units"),
                ]
            }

            public typealias Response = SavedSearch
        }

        /// `marketplace-chat.saved-searches.list.v1`
        public enum List: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.saved-searches.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/marketplace/saved-searches", name: "marketplaceSavedSearches", access: .owner, errors: [.forbidden],
                summary: "The caller's saved searches, the latest first")]
            public typealias Request = Empty

            public struct Response: Codable, Sendable, Equatable {
                public var savedSearches: [SavedSearch]

                public init(savedSearches: [SavedSearch]) { self.savedSearches = savedSearches }
            }
        }

        /// `marketplace-chat.saved-searches.delete.v1`
        public enum Delete: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.saved-searches.delete.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/marketplace/saved-searches/{savedSearchId}", name: "marketplaceSavedSearchDelete", access: .owner,
                errors: [.notFound, .forbidden], summary: "Deletes one of the caller's saved searches (a repeat is 404)")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds it gone (404)")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var savedSearchId: String

                public init(savedSearchId: String) { self.savedSearchId = savedSearchId }

                public static let fieldRules: [String: FieldRule] = ["savedSearchId": FieldRule.uuid.described("the saved search id")]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var deleted: Bool

                public init(deleted: Bool) { self.deleted = deleted }
            }
        }
    }
}
