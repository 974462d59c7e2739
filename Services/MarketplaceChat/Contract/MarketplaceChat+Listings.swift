import Contracts
import Envelope
import Foundation

extension MarketplaceChat {
    public enum Listings {
        public struct Reference: Codable, Sendable, Equatable, FieldRules {
            public var listingId: String

            public init(listingId: String) { self.listingId = listingId }

            public static let fieldRules: [String: FieldRule] = ["listingId": FieldRule.uuid.described("the listing id")]
        }

        static let photoRule = FieldRule.count(Bounds.photos).each(.uuid).described("up to 8 photo ids uploaded first, the cover first")
        static let priceRule = FieldRule.range(0...Bounds.priceMinorUnits).described("in the network's currency's minor unit; 0 is free")
        static let textRules: [String: FieldRule] = [
            "title": .text(Bounds.title), "description": .text(Bounds.description), "priceMinorUnits": priceRule, "photoIds": photoRule,
            "category": FieldRule.text(1...40).described("one of the network's categories"),
            "campus": FieldRule.text(1...64).described("one of the network's campuses"),
        ]

        /// `marketplace-chat.listings.create.v1`
        public enum Create: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.listings.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/marketplace/listings", name: "marketplaceListingCreate", access: .signedIn, status: .created,
                errors: [.forbidden, .rateLimited],
                summary: """
                    Lists an item in one call: published at once (30 days in the feed, at least one photo) or kept as a draft; \
                    the price in the network's currency
                    """,
                example: #"{"title":"Calculus textbook","description":"Stewart, 8th edition","priceMinorUnits":2500,"category":"textbooks","condition":"good","campus":"college-green","photoIds":["0d1e2f3a-0000-4e5f-8a9b-000000000001"]}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var title: String
                public var description: String?
                public var priceMinorUnits: Int64
                public var category: String
                public var condition: Condition
                public var campus: String
                public var photoIds: [String]?
                /// True: kept as a draft, not published.
                public var draft: Bool?

                public init(title: String, description: String? = nil, priceMinorUnits: Int64, category: String, condition: Condition, campus: String,
                            photoIds: [String]? = nil, draft: Bool? = nil) {
                    self.title = title
                    self.description = description
                    self.priceMinorUnits = priceMinorUnits
                    self.category = category
                    self.condition = condition
                    self.campus = campus
                    self.photoIds = photoIds
                    self.draft = draft
                }

                public static let fieldRules: [String: FieldRule] = textRules
            }

            public typealias Response = Listing
        }

        /// `marketplace-chat.listings.get.v1`
        public enum Get: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.listings.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/marketplace/listings/{listingId}", name: "marketplaceListing", access: .signedIn, errors: [.notFound, .forbidden],
                summary: "A listing with its description and photos: for its network while active, reserved or sold; for its seller until removed")]
            public typealias Request = Reference
            public typealias Response = Listing
        }

        /// `marketplace-chat.listings.update.v1`
        public enum Update: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.listings.update.v1"
            public static let http = [HTTPBinding(
                .patch, "/v1/marketplace/listings/{listingId}", name: "marketplaceListingUpdate", access: .owner,
                errors: [.notFound, .forbidden, .conflict],
                summary: "The seller changes a listing not yet sold, naming the version read (409 with the listing as it is)",
                example: #"{"version":1,"priceMinorUnits":2000}"#)]
            public static let idempotency: Idempotency? = .repeatable(because: "it sets the same values again, or finds the version moved on")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var listingId: String
                public var version: Int
                public var title: String?
                public var description: String?
                public var priceMinorUnits: Int64?
                public var category: String?
                public var condition: Condition?
                public var campus: String?
                public var photoIds: [String]?

                public init(listingId: String, version: Int, title: String? = nil, description: String? = nil, priceMinorUnits: Int64? = nil,
                            category: String? = nil, condition: Condition? = nil, campus: String? = nil, photoIds: [String]? = nil) {
                    self.listingId = listingId
                    self.version = version
                    self.title = title
                    self.description = description
                    self.priceMinorUnits = priceMinorUnits
                    self.category = category
                    self.condition = condition
                    self.campus = campus
                    self.photoIds = photoIds
                }

                public static let fieldRules: [String: FieldRule] = textRules.merging(["listingId": .uuid, "version": .range(1...Int.max)]) { $1 }
            }

            public typealias Response = Listing
        }

        /// `marketplace-chat.listings.publish.v1`
        public enum Publish: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.listings.publish.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/marketplace/listings/{listingId}/publish", name: "marketplaceListingPublish", access: .owner,
                errors: [.notFound, .forbidden, .conflict],
                summary: """
                    Publishes a draft, an expired listing again, or renews an active one in its last 7 days: to the top of the feed \
                    for 30 days from now
                    """)]
            public static let idempotency: Idempotency? = .stored()
            public typealias Request = Reference
            public typealias Response = Listing
        }

        /// `marketplace-chat.listings.sell.v1`
        public enum Sell: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.listings.sell.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/marketplace/listings/{listingId}/sold", name: "marketplaceListingSold", access: .owner,
                errors: [.notFound, .forbidden, .conflict],
                summary: """
                    The seller marks an active or reserved listing sold: it leaves the feed for the seller's history; sold to the buyer of \
                    one of its conversations (conversationId), each may review the other for 14 days
                    """,
                example: #"{"conversationId":"2c3d4e5f-0000-4e5f-8a9b-000000000001"}"#)]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds it sold")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var listingId: String
                public var conversationId: String?

                public init(listingId: String, conversationId: String? = nil) {
                    self.listingId = listingId
                    self.conversationId = conversationId
                }

                public static let fieldRules: [String: FieldRule] = [
                    "listingId": FieldRule.uuid.described("the listing id"),
                    "conversationId": FieldRule.uuid.described("the conversation about this listing whose buyer bought it; left out: sold elsewhere"),
                ]
            }

            public typealias Response = Listing
        }

        /// `marketplace-chat.listings.remove.v1`
        public enum Remove: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.listings.remove.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/marketplace/listings/{listingId}", name: "marketplaceListingRemove", access: .owner,
                errors: [.notFound, .forbidden],
                summary: "The seller removes a listing: gone from every read, its photos deleted")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds nothing left to remove")
            public typealias Request = Reference

            public struct Response: Codable, Sendable, Equatable {
                /// False when it was removed already.
                public var removed: Bool

                public init(removed: Bool) { self.removed = removed }
            }
        }

        /// `marketplace-chat.listings.search.v1`
        public enum Search: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.listings.search.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/marketplace/listings", name: "marketplaceListings", access: .signedIn, errors: [.forbidden],
                summary: """
                    The feed of the caller's network, or a search of it: active listings, filtered and sorted; with q, words of the \
                    title or description, or the titles' close words when they find nothing (searchedFor); pages that stay put while \
                    new listings arrive (pass nextAfter as after)
                    """)]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var q: String?
                public var category: String?
                public var campus: String?
                public var condition: Condition?
                public var minPrice: Int64?
                public var maxPrice: Int64?
                /// True: free items only.
                public var free: Bool?
                public var sort: Sort?
                public var limit: Int?
                public var after: String?

                public init(q: String? = nil, category: String? = nil, campus: String? = nil, condition: Condition? = nil, minPrice: Int64? = nil,
                            maxPrice: Int64? = nil, free: Bool? = nil, sort: Sort? = nil, limit: Int? = nil, after: String? = nil) {
                    self.q = q
                    self.category = category
                    self.campus = campus
                    self.condition = condition
                    self.minPrice = minPrice
                    self.maxPrice = maxPrice
                    self.free = free
                    self.sort = sort
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = [
                    "q": FieldRule.text(Bounds.query).described("words of the title or description"),
                    "category": .text(1...40), "campus": .text(1...64),
                    "minPrice": FieldRule.range(0...Bounds.priceMinorUnits).described("in minor units"),
                    "maxPrice": FieldRule.range(0...Bounds.priceMinorUnits).described("in minor units"),
                    "sort": FieldRule.described("newest without q, relevance with it, when left out"),
                    "limit": FieldRule.range(PageRequest.limits).described("items per page, 20 when left out"),
                    "after": FieldRule.text(1...200).described("the previous page's nextAfter, with the same filters and sort"),
                ]
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var listings: [Card]
                public var nextAfter: String?
                /// When the words given found nothing: the close words of the listings' titles searched
                /// for instead that found this page's listings, each word's joined by "or", the closest
                /// first ("calculator or calculus" for "calculas"), to show as such. Absent otherwise.
                public var searchedFor: String?

                public init(listings: [Card], nextAfter: String?, searchedFor: String? = nil) {
                    self.listings = listings
                    self.nextAfter = nextAfter
                    self.searchedFor = searchedFor
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }

        /// `marketplace-chat.listings.mine.v1`
        public enum Mine: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.listings.mine.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/marketplace/me/listings", name: "marketplaceMyListings", access: .owner, errors: [.forbidden],
                summary: "The caller's listings, newest first: those for sale (state=active), the selling history (state=sold), drafts, ...")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var state: ListingState?
                public var limit: Int?
                public var after: Int64?

                public init(state: ListingState? = nil, limit: Int? = nil, after: Int64? = nil) {
                    self.state = state
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = PageRequest.fieldRules.merging(["state": .described("every state but removed when left out")]) { $1 }
                public var page: PageRequest { PageRequest(limit: limit, after: after) }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var listings: [Listing]
                public var nextAfter: Int64?

                public init(listings: [Listing], nextAfter: Int64?) {
                    self.listings = listings
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }
    }

    public enum Photos {
        /// `marketplace-chat.photos.upload.v1`
        public enum Upload: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.photos.upload.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/marketplace/photos", name: "marketplacePhotoUpload", access: .signedIn, status: .created,
                errors: [.forbidden, .tooLarge, .rateLimited],
                summary: """
                    Keeps a picture for a listing: the image itself as the body (JPEG, PNG, WebP or HEIC, at most 5 MiB), kept without \
                    its metadata with a WebP thumbnail; name it on a listing within a day (60 an hour)
                    """,
                upload: .image)]
            public static let idempotency: Idempotency? = .stored()

            public typealias Request = ImageUpload

            public typealias Response = Photo
        }

        /// `marketplace-chat.photos.get.v1`
        public enum Get: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.photos.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/marketplace/photos/{photoId}", name: "marketplacePhoto", access: .signedIn, errors: [.notFound, .forbidden],
                summary: "A listing's picture or its thumbnail (size=thumbnail), for whoever may see the listing, and its uploader", file: .image())]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var photoId: String
                public var size: ImageVariant?
                /// The request's `If-None-Match` (the gateway copies the header).
                public var ifNoneMatch: String?

                public init(photoId: String, size: ImageVariant? = nil, ifNoneMatch: String? = nil) {
                    self.photoId = photoId
                    self.size = size
                    self.ifNoneMatch = ifNoneMatch
                }

                public static let fieldRules: [String: FieldRule] = [
                    "photoId": FieldRule.uuid.described("the photo id"), "size": ImageVariant.fieldRule, "ifNoneMatch": .undocumented,
                ]
            }

            public typealias Response = MediaFile
        }
    }
}
