import Contracts
import Envelope
import Foundation

extension Payments {
    /// Where a refund stands: asked of the processor (`pending`), given back (`succeeded`, posted to
    /// the ledger with its karma), or refused by the processor (`failed`, nothing posted).
    public enum RefundStatus: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        case pending, succeeded, failed
    }

    /// A refund of (part of) a donation, as the campaign's owner or an admin sees it.
    public struct Refund: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var donationId: String
        public var amount: Money
        public var status: RefundStatus
        public var createdAt: Date

        public init(id: String, donationId: String, amount: Money, status: RefundStatus, createdAt: Date) {
            self.id = id
            self.donationId = donationId
            self.amount = amount
            self.status = status
            self.createdAt = createdAt
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "donationId": .uuid]
    }

    /// A donation a campaign received, as its owner (or an admin) sees it: the donor by username
    /// unless they gave anonymously or their account is gone.
    public struct ReceivedDonation: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var amount: Money
        /// Given back so far: refunds and disputes.
        public var returned: Money
        public var donor: String?
        public var at: Date
        /// The page cursor: pass it as `after` for the donations before this one.
        public var seq: Int64

        public init(id: String, amount: Money, returned: Money, donor: String?, at: Date, seq: Int64) {
            self.id = id
            self.amount = amount
            self.returned = returned
            self.donor = donor
            self.at = at
            self.seq = seq
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid]
    }

    public enum Refunds {
        /// `payments.refunds.create.v1`
        public enum Create: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.refunds.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/donations/{donationId}/refunds", name: "refundCreate", access: .owner, status: .created,
                errors: [.notFound, .forbidden, .conflict, .unavailable],
                summary: """
                    Gives (part of) a donation back through the processor: by its campaign's owner or an admin (the fundraising-admin \
                    role); the whole of what is left when amount is left out; needs an Idempotency-Key, and a repeat with it refunds once
                    """,
                example: #"{"amount":{"minorUnits":1000,"currency":"EUR"}}"#, requiresIdempotencyKey: true)]
            public static let idempotency: Idempotency? = .repeatable(
                because: "the Idempotency-Key names the refund: a repeat says where it stands and gives back once")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var donationId: String
                public var amount: Money?

                public init(donationId: String, amount: Money? = nil) {
                    self.donationId = donationId
                    self.amount = amount
                }

                public static let fieldRules: [String: FieldRule] = [
                    "donationId": .uuid, "amount": .described("in euros (EUR), at most what is left of the donation; all of it when left out"),
                ]
            }

            public typealias Response = Refund
        }

        /// `payments.refunds.received.v1`
        public enum Received: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.refunds.received.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/campaigns/{campaignId}/donations", name: "campaignDonations", access: .owner, errors: [.notFound, .forbidden],
                summary: "The succeeded donations a campaign received, the newest first: for its owner or an admin, to refund from")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var campaignId: String
                public var limit: Int?
                public var after: Int64?

                public init(campaignId: String, limit: Int? = nil, after: Int64? = nil) {
                    self.campaignId = campaignId
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = PageRequest.fieldRules.merging(["campaignId": .uuid]) { $1 }

                public var page: PageRequest { PageRequest(limit: limit, after: after) }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var donations: [ReceivedDonation]
                public var nextAfter: Int64?

                public init(donations: [ReceivedDonation], nextAfter: Int64?) {
                    self.donations = donations
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }
    }
}
