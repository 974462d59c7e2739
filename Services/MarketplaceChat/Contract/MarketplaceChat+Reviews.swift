import Contracts
import Envelope
import Foundation

extension MarketplaceChat {
    /// Which side of a deal someone was on.
    public enum DealRole: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        case buyer, seller
    }

    /// A review of one side of a deal by the other, shown once both reviewed or the 14 days ended.
    public struct Review: Codable, Sendable, Equatable, FieldRules {
        public var listingId: String
        /// Empty once the seller who wrote the review (and the title) has their account deleted.
        public var listingTitle: String
        /// The author's side of the deal.
        public var role: DealRole
        /// The author by username; "a deleted user" once their account is deleted.
        public var author: Participant
        public var stars: Int
        /// Empty once its author's account is deleted.
        public var text: String
        public var createdAt: Date
        /// Its place in the list: pass as `after` for older ones.
        public var number: Int64

        public init(listingId: String, listingTitle: String, role: DealRole, author: Participant, stars: Int, text: String, createdAt: Date,
                    number: Int64) {
            self.listingId = listingId
            self.listingTitle = listingTitle
            self.role = role
            self.author = author
            self.stars = stars
            self.text = text
            self.createdAt = createdAt
            self.number = number
        }

        public static let fieldRules: [String: FieldRule] = ["listingId": .uuid, "stars": FieldRule.range(1...5)]
    }

    /// A trader's rating from the reviews shown.
    public struct RatingSummary: Codable, Sendable, Equatable, FieldRules {
        public var count: Int
        /// The mean of the stars to one decimal; absent without reviews.
        public var average: Double?
        /// How many reviews gave 1, 2, 3, 4 and 5 stars.
        public var stars: [Int]

        public init(count: Int, average: Double?, stars: [Int]) {
            self.count = count
            self.average = average
            self.stars = stars
        }

        public static let fieldRules: [String: FieldRule] = ["stars": FieldRule.count(5...5).described("counts for 1 to 5 stars")]
    }

    public enum Reviews {
        /// `marketplace-chat.reviews.create.v1`
        public enum Create: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.reviews.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/marketplace/listings/{listingId}/review", name: "marketplaceReviewCreate", access: .owner, status: .created,
                errors: [.notFound, .forbidden, .conflict],
                summary: "The buyer or the seller of a listing sold between them reviews the other, once, within 14 days of the sale",
                example: #"{"stars":5,"text":"On time and the book was as described."}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var listingId: String
                public var stars: Int
                public var text: String?

                public init(listingId: String, stars: Int, text: String? = nil) {
                    self.listingId = listingId
                    self.stars = stars
                    self.text = text
                }

                public static let fieldRules: [String: FieldRule] = [
                    "listingId": .uuid, "stars": FieldRule.range(1...5).described("1 to 5"),
                    "text": FieldRule.text(0...MarketplaceChat.Bounds.reviewText.upperBound).described("what went well or not"),
                ]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var review: Review
                /// Whether others see it yet (both reviewed, or the 14 days ended).
                public var shown: Bool

                public init(review: Review, shown: Bool) {
                    self.review = review
                    self.shown = shown
                }
            }
        }

        /// `marketplace-chat.reviews.list.v1`
        public enum List: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.reviews.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/marketplace/traders/{accountId}/reviews", name: "marketplaceTraderReviews", access: .signedIn, errors: [.notFound, .forbidden],
                summary: "A trader's rating and the reviews of their deals, the latest first")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var accountId: String
                public var limit: Int?
                public var after: Int64?

                public init(accountId: String, limit: Int? = nil, after: Int64? = nil) {
                    self.accountId = accountId
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = PageRequest.fieldRules.merging(["accountId": FieldRule.uuid.described("a trader of the caller's network")]) { $1 }
                public var page: PageRequest { PageRequest(limit: limit, after: after) }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var trader: Trader
                public var rating: RatingSummary
                public var reviews: [Review]
                public var nextAfter: Int64?

                public init(trader: Trader, rating: RatingSummary, reviews: [Review], nextAfter: Int64?) {
                    self.trader = trader
                    self.rating = rating
                    self.reviews = reviews
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }
    }
}
