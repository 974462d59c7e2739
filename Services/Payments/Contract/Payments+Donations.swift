import Contracts
import Envelope
import Foundation

extension Payments {
    /// Where a donation stands.
    public enum DonationStatus: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        /// With the processor: ask again (GET) in a moment.
        case processing
        /// The bank wants the donor to confirm (3-D Secure): finish it in the app with `nextAction`, then
        /// say so (`POST /v1/donations/{donationId}/finished`).
        case requiresAction = "requires_action"
        case succeeded
        case failed
    }

    /// Why a donation failed, as safe to show: the processor's own code stays in our logs.
    public enum DeclineReason: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        case cardDeclined = "card_declined"
        case insufficientFunds = "insufficient_funds"
        case expired
        case tryAgain = "try_again"
    }

    /// What the app does to finish a donation the bank wants confirmed.
    public struct NextAction: Codable, Sendable, Equatable {
        /// `use_stripe_sdk` (hand `clientSecret` to the processor's SDK) or `redirect_to_url`.
        public var type: String
        public var clientSecret: String?
        public var redirectUrl: String?

        public init(type: String, clientSecret: String?, redirectUrl: String?) {
            self.type = type
            self.clientSecret = clientSecret
            self.redirectUrl = redirectUrl
        }
    }

    /// A payment method the app made on the device from Apple Pay.
    static let paymentMethodRule = FieldRule.text(4...255).pattern("^(pm|tok)_[A-Za-z0-9_]+$", meaning: "a payment method id (pm_…) or token (tok_…)")
        .described("made on the device from Apple Pay; never a card number")

    /// A donation as its donor sees it.
    public struct Donation: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var campaignId: String
        public var amount: Money
        /// Given back so far: refunds and disputes.
        public var returned: Money
        /// Left off the campaign's list of donors.
        public var anonymous: Bool
        public var status: DonationStatus
        /// Why it failed (when it did).
        public var reason: DeclineReason?
        /// What the app does next (while `requires_action`).
        public var nextAction: NextAction?
        /// `sandbox` (the local default, which charges nobody) or `stripe`.
        public var processor: String
        public var createdAt: Date
        public var succeededAt: Date?

        public init(id: String, campaignId: String, amount: Money, returned: Money, anonymous: Bool, status: DonationStatus, reason: DeclineReason?, nextAction: NextAction?,
                    processor: String, createdAt: Date, succeededAt: Date?) {
            self.id = id
            self.campaignId = campaignId
            self.amount = amount
            self.returned = returned
            self.anonymous = anonymous
            self.status = status
            self.reason = reason
            self.nextAction = nextAction
            self.processor = processor
            self.createdAt = createdAt
            self.succeededAt = succeededAt
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "campaignId": .uuid]
    }

    public struct DonationReference: Codable, Sendable, Equatable, FieldRules {
        public var donationId: String

        public init(donationId: String) { self.donationId = donationId }

        public static let fieldRules: [String: FieldRule] = ["donationId": .uuid]
    }

    public enum Donations {
        /// `payments.donations.create.v1`
        public enum Create: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.donations.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/campaigns/{campaignId}/donations", name: "donationCreate", access: .signedIn, status: .created,
                errors: [.notFound, .forbidden, .conflict, .rateLimited, .unavailable],
                summary: """
                    Gives to an open campaign (not one's own) with a payment method the app made from Apple Pay (pm_… or tok_…): needs an \
                    Idempotency-Key, and a repeat with it charges once and says where the donation stands; at least 0.50 euro
                    """,
                example: #"{"amount":{"minorUnits":2500,"currency":"EUR"},"paymentMethod":"pm_card_visa"}"#, requiresIdempotencyKey: true)]
            public static let idempotency: Idempotency? = .repeatable(
                because: "the Idempotency-Key names the donation: a repeat resumes it and charges once")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var campaignId: String
                public var amount: Money
                public var paymentMethod: String
                public var anonymous: Bool?

                public init(campaignId: String, amount: Money, paymentMethod: String, anonymous: Bool? = nil) {
                    self.campaignId = campaignId
                    self.amount = amount
                    self.paymentMethod = paymentMethod
                    self.anonymous = anonymous
                }

                public static let fieldRules: [String: FieldRule] = [
                    "campaignId": .uuid, "amount": .described("in euros (EUR), from 0.50 to 10,000"),
                    "paymentMethod": Payments.paymentMethodRule,
                ]
            }

            public typealias Response = Donation
        }

        /// `payments.donations.get.v1`
        public enum Get: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.donations.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/donations/{donationId}", name: "donation", access: .owner, errors: [.notFound, .forbidden],
                summary: "One of the caller's donations, asking the processor again while it is processing", apps: .everyApp)]

            public typealias Request = DonationReference
            public typealias Response = Donation
        }

        /// `payments.donations.finish.v1`
        public enum Finish: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.donations.finish.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/donations/{donationId}/finished", name: "donationFinished", access: .owner, errors: [.notFound, .forbidden],
                summary: "Says the app finished what the bank asked (3-D Secure): the processor is asked how the donation ended", apps: .everyApp)]
            public static let idempotency: Idempotency? = .repeatable(because: "it asks the processor again; a donation is posted once")

            public typealias Request = DonationReference
            public typealias Response = Donation
        }

        /// `payments.donations.mine.v1`
        public enum Mine: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.donations.mine.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/me/donations", name: "donationsMine", access: .signedIn, errors: [.forbidden],
                summary: "The caller's donations, the newest first")]

            public typealias Request = PageRequest

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var donations: [Donation]
                public var nextAfter: Int64?

                public init(donations: [Donation], nextAfter: Int64?) {
                    self.donations = donations
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }
    }
}
