import Contracts
import Envelope
import Foundation

extension Payments {
    /// The Melon project's own campaign (its upkeep): a campaign like the others, with no owner,
    /// that never ends; people give to it from any of the apps, with a receipt by email.
    public static let projectCampaignId = "6d656c6f-6e00-4000-8000-000000000001"

    public enum Project {
        /// `payments.project.get.v1`
        public enum Get: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.project.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/project", name: "project", access: .signedIn,
                summary: "The Melon project's own campaign, for its upkeep, with its figures from the ledger (any app)", apps: .everyApp)]

            public typealias Request = Empty
            public typealias Response = CampaignDetail
        }

        /// `payments.project.donate.v1`
        public enum Donate: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.project.donate.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/project/donations", name: "projectDonate", access: .signedIn, status: .created,
                errors: [.conflict, .rateLimited, .unavailable],
                summary: """
                    Gives to the Melon project's upkeep from any app, as to a campaign (an Idempotency-Key is required; read it back and \
                    finish 3-D Secure with the donation routes); with receiptEmail, a receipt stating the gross, the processor's fee and the \
                    net is mailed there once the fee is known
                    """,
                example: #"{"amount":{"minorUnits":500,"currency":"EUR"},"paymentMethod":"pm_card_visa","receiptEmail":"aoife@example.ie"}"#,
                requiresIdempotencyKey: true, apps: .everyApp)]
            public static let idempotency: Idempotency? = .repeatable(
                because: "the Idempotency-Key names the donation: a repeat resumes it and charges once")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var amount: Money
                public var paymentMethod: String
                public var anonymous: Bool?
                /// Where the receipt goes; none without it. Kept until the receipt is sent.
                public var receiptEmail: String?

                public init(amount: Money, paymentMethod: String, anonymous: Bool? = nil, receiptEmail: String? = nil) {
                    self.amount = amount
                    self.paymentMethod = paymentMethod
                    self.anonymous = anonymous
                    self.receiptEmail = receiptEmail
                }

                public static let fieldRules: [String: FieldRule] = [
                    "amount": .described("in euros (EUR), from 0.50 to 10,000"), "paymentMethod": Payments.paymentMethodRule, "receiptEmail": .email,
                ]
            }

            public typealias Response = Donation
        }
    }
}
