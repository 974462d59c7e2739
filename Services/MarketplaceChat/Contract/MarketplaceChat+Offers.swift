import Contracts
import Envelope
import Foundation

extension MarketplaceChat {
    /// Where an offer is.
    public enum OfferState: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        /// Made by the buyer: the seller accepts, declines or counters it within 48 hours.
        case open
        /// The seller named another price: the buyer accepts or declines it within 48 hours.
        case countered
        /// Agreed: the listing is reserved for the buyer for 72 hours at the agreed price.
        case accepted
        /// Refused by either side (a buyer's no is a withdrawal), or by the sale to someone else.
        case declined
        /// Unanswered within 48 hours, or a reservation that ran out without a sale.
        case expired
    }

    /// A buyer's offer on a listing, as its buyer and its seller see it.
    public struct Offer: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var listingId: String
        public var buyer: Participant
        /// The buyer's price.
        public var amount: Money
        /// The seller's counter-offer, when there is one.
        public var counter: Money?
        public var state: OfferState
        /// Whether the caller made it (else it was made to them).
        public var mine: Bool
        public var createdAt: Date
        /// When an open or countered offer lapses, or an accepted one's reservation ends.
        public var expiresAt: Date?

        public init(id: String, listingId: String, buyer: Participant, amount: Money, counter: Money?, state: OfferState, mine: Bool, createdAt: Date,
                    expiresAt: Date?) {
            self.id = id
            self.listingId = listingId
            self.buyer = buyer
            self.amount = amount
            self.counter = counter
            self.state = state
            self.mine = mine
            self.createdAt = createdAt
            self.expiresAt = expiresAt
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "listingId": .uuid]
    }

    public enum Offers {
        public struct Reference: Codable, Sendable, Equatable, FieldRules {
            public var offerId: String

            public init(offerId: String) { self.offerId = offerId }

            public static let fieldRules: [String: FieldRule] = ["offerId": .uuid]
        }

        /// A price in the listing's currency, in minor units.
        public static let amountRule = FieldRule.range(1...MarketplaceChat.Bounds.priceMinorUnits).described("in the listing's currency, minor units")

        /// `marketplace-chat.offers.create.v1`
        public enum Create: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.offers.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/marketplace/listings/{listingId}/offers", name: "marketplaceOfferCreate", access: .signedIn, status: .created,
                errors: [.notFound, .forbidden, .conflict],
                summary: "A buyer offers a price for an active listing: one open offer per buyer and listing, open for 48 hours",
                example: #"{"amountMinorUnits":2000}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var listingId: String
                public var amountMinorUnits: Int64

                public init(listingId: String, amountMinorUnits: Int64) {
                    self.listingId = listingId
                    self.amountMinorUnits = amountMinorUnits
                }

                public static let fieldRules: [String: FieldRule] = ["listingId": .uuid, "amountMinorUnits": amountRule]
            }

            public typealias Response = Offer
        }

        /// `marketplace-chat.offers.list.v1`
        public enum List: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.offers.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/marketplace/listings/{listingId}/offers", name: "marketplaceOffers", access: .signedIn, errors: [.notFound, .forbidden],
                summary: "A listing's offers: all of them to its seller, their own to a buyer; the latest first")]
            public typealias Request = Listings.Reference

            public struct Response: Codable, Sendable, Equatable {
                public var offers: [Offer]

                public init(offers: [Offer]) { self.offers = offers }
            }
        }

        /// `marketplace-chat.offers.accept.v1`
        public enum Accept: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.offers.accept.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/marketplace/offers/{offerId}/accept", name: "marketplaceOfferAccept", access: .owner,
                errors: [.notFound, .forbidden, .conflict],
                summary: "The seller accepts an open offer, or the buyer a counter-offer: the listing is reserved for the buyer for 72 hours")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds it accepted")
            public typealias Request = Reference
            public typealias Response = Offer
        }

        /// `marketplace-chat.offers.decline.v1`
        public enum Decline: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.offers.decline.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/marketplace/offers/{offerId}/decline", name: "marketplaceOfferDecline", access: .owner,
                errors: [.notFound, .forbidden, .conflict],
                summary: "Either side says no to an open or countered offer (the buyer's no withdraws it); an accepted one's reservation ends")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds it declined")
            public typealias Request = Reference
            public typealias Response = Offer
        }

        /// `marketplace-chat.offers.counter.v1`
        public enum Counter: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.offers.counter.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/marketplace/offers/{offerId}/counter", name: "marketplaceOfferCounter", access: .owner,
                errors: [.notFound, .forbidden, .conflict],
                summary: "The seller answers an open offer with another price, open to the buyer for 48 hours",
                example: #"{"amountMinorUnits":2250}"#)]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat with the same price finds it countered")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var offerId: String
                public var amountMinorUnits: Int64

                public init(offerId: String, amountMinorUnits: Int64) {
                    self.offerId = offerId
                    self.amountMinorUnits = amountMinorUnits
                }

                public static let fieldRules: [String: FieldRule] = ["offerId": .uuid, "amountMinorUnits": amountRule]
            }

            public typealias Response = Offer
        }
    }
}
