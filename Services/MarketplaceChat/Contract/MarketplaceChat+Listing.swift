import Contracts
import Envelope
import Foundation

extension MarketplaceChat {
    /// A listing as its seller and its network see it.
    public struct Listing: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var sellerId: String
        public var sellerUsername: String
        public var title: String
        public var description: String
        /// Zero: free.
        public var price: Money
        public var category: String
        public var condition: Condition
        public var campus: String
        /// In the seller's order; the first is the cover (`GET /v1/marketplace/photos/{id}`).
        public var photoIds: [String]
        public var state: ListingState
        public var createdAt: Date
        public var updatedAt: Date
        /// When it was last published (it went to the top of the feed then).
        public var publishedAt: Date?
        /// When it leaves the feed unless renewed; absent unless active.
        public var expiresAt: Date?
        public var soldAt: Date?
        /// Increases with every change: an update names the version it read.
        public var version: Int
        /// How many buyers asked about it (opened a conversation): its seller's list and reads only.
        public var interested: Int?

        public init(id: String, sellerId: String, sellerUsername: String, title: String, description: String, price: Money, category: String,
                    condition: Condition, campus: String, photoIds: [String], state: ListingState, createdAt: Date, updatedAt: Date,
                    publishedAt: Date?, expiresAt: Date?, soldAt: Date?, version: Int, interested: Int? = nil) {
            self.id = id
            self.sellerId = sellerId
            self.sellerUsername = sellerUsername
            self.title = title
            self.description = description
            self.price = price
            self.category = category
            self.condition = condition
            self.campus = campus
            self.photoIds = photoIds
            self.state = state
            self.createdAt = createdAt
            self.updatedAt = updatedAt
            self.publishedAt = publishedAt
            self.expiresAt = expiresAt
            self.soldAt = soldAt
            self.version = version
            self.interested = interested
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "sellerId": .uuid, "photoIds": FieldRule.each(.uuid)]
    }

    /// A listing as a card of the feed: its cover photo, title, price and seller.
    public struct Card: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var sellerId: String
        public var sellerUsername: String
        public var title: String
        public var price: Money
        public var category: String
        public var condition: Condition
        public var campus: String
        public var coverPhotoId: String?
        public var state: ListingState
        public var publishedAt: Date?

        public init(id: String, sellerId: String, sellerUsername: String, title: String, price: Money, category: String, condition: Condition,
                    campus: String, coverPhotoId: String?, state: ListingState, publishedAt: Date?) {
            self.id = id
            self.sellerId = sellerId
            self.sellerUsername = sellerUsername
            self.title = title
            self.price = price
            self.category = category
            self.condition = condition
            self.campus = campus
            self.coverPhotoId = coverPhotoId
            self.state = state
            self.publishedAt = publishedAt
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "sellerId": .uuid, "coverPhotoId": .uuid]
    }

    /// A picture uploaded for a listing: named by the listing within a day, or deleted.
    public struct Photo: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var mediaType: String
        public var width: Int
        public var height: Int
        public var size: Int
        public var createdAt: Date

        public init(id: String, mediaType: String, width: Int, height: Int, size: Int, createdAt: Date) {
            self.id = id
            self.mediaType = mediaType
            self.width = width
            self.height = height
            self.size = size
            self.createdAt = createdAt
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid]
    }

    /// How a feed or a search is ordered.
    public enum Sort: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        /// The most recently published first (the default without words).
        case newest
        case priceAscending = "price_asc"
        case priceDescending = "price_desc"
        /// The best matches of the words first (the default with words).
        case relevance
    }
}
