import Contracts
import Envelope
import Foundation

extension MarketplaceChat {
    public enum Network {
        /// `marketplace-chat.network.get.v1`: the caller's university network as the marketplace
        /// knows it: its currency, campuses, the categories and conditions a listing names.
        public enum Get: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.network.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/marketplace/network", name: "marketplaceNetwork", access: .signedIn, errors: [.forbidden],
                summary: "The caller's university network: its currency, campuses, the categories and the conditions a listing names")]
            public typealias Request = Empty

            public struct Response: Codable, Sendable, Equatable {
                /// The university's id (the access token's `univ`).
                public var university: String
                /// Every price of the network is in this currency.
                public var currency: Currency
                public var campuses: [Campus]
                public var categories: [Category]
                public var conditions: [Condition]

                public init(university: String, currency: Currency, campuses: [Campus], categories: [Category], conditions: [Condition]) {
                    self.university = university
                    self.currency = currency
                    self.campuses = campuses
                    self.categories = categories
                    self.conditions = conditions
                }
            }
        }
    }

    public enum Traders {
        /// `marketplace-chat.traders.search.v1`: people of the caller's network who traded on the
        /// marketplace, by username (its beginning, or close to it).
        public enum Search: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.traders.search.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/marketplace/traders", name: "marketplaceTradersSearch", access: .signedIn, errors: [.forbidden],
                summary: "Sellers and buyers of the caller's network by username: those it begins with first, then close ones (typos)")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var q: String
                public var limit: Int?

                public init(q: String, limit: Int? = nil) {
                    self.q = q
                    self.limit = limit
                }

                public static let fieldRules: [String: FieldRule] = [
                    "q": FieldRule.text(1...40).described("a username or its beginning"),
                    "limit": FieldRule.range(PageRequest.limits).described("at most this many, 20 when left out"),
                ]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var traders: [Trader]

                public init(traders: [Trader]) { self.traders = traders }
            }
        }
    }

    public enum Account {
        /// `marketplace-chat.account.erase.v1`: an account was deleted. Its listings and photos go,
        /// and its name with them. Sent by `auth` through its outbox; repeats are harmless.
        public enum Erase: AccountEraseOperation {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.account.erase.v1"
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds nothing left to erase")
            public typealias Request = AccountErasure

            public struct Response: Codable, Sendable, Equatable {
                public var listingsDeleted: Int
                public var photosDeleted: Int

                public init(listingsDeleted: Int, photosDeleted: Int) {
                    self.listingsDeleted = listingsDeleted
                    self.photosDeleted = photosDeleted
                }
            }
        }
    }
}
