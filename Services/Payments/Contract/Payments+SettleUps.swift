import Contracts
import Envelope
import Foundation

extension Payments {
    /// A household debt paid in the household app (the seed's "pay an unpaid bill" in the app): the
    /// payer's card is charged through the same processor path as a donation, the money is held
    /// for the member paid, and household records the settlement once the processor took it.
    public struct SettleUp: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var householdId: String
        /// The member paid.
        public var to: String
        public var amount: Money
        public var status: DonationStatus
        /// Why it failed (when it did).
        public var reason: DeclineReason?
        /// What the app does next (while `requires_action`).
        public var nextAction: NextAction?
        /// `sandbox` (the local default, which charges nobody) or `stripe`.
        public var processor: String
        public var createdAt: Date
        public var succeededAt: Date?

        public init(id: String, householdId: String, to: String, amount: Money, status: DonationStatus, reason: DeclineReason?, nextAction: NextAction?,
                    processor: String, createdAt: Date, succeededAt: Date?) {
            self.id = id
            self.householdId = householdId
            self.to = to
            self.amount = amount
            self.status = status
            self.reason = reason
            self.nextAction = nextAction
            self.processor = processor
            self.createdAt = createdAt
            self.succeededAt = succeededAt
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "householdId": .uuid, "to": .uuid]
    }

    public struct SettleUpReference: Codable, Sendable, Equatable, FieldRules {
        public var settleUpId: String

        public init(settleUpId: String) { self.settleUpId = settleUpId }

        public static let fieldRules: [String: FieldRule] = ["settleUpId": .uuid]
    }

    public enum SettleUps {
        /// `payments.settle-ups.create.v1`
        public enum Create: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.settle-ups.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/settle-ups", name: "settleUpCreate", access: .signedIn, status: .created,
                errors: [.notFound, .forbidden, .conflict, .rateLimited, .unavailable],
                summary: """
                    From the household app: pays a member of one's household what one owes them (at most that, in euros, at least 0.50) \
                    with a payment method the app made from Apple Pay; needs an Idempotency-Key, and a repeat with it charges once. \
                    Once it succeeds the household records the settlement, confirmed
                    """,
                example: #"{"householdId":"a1b2c3d4-0000-4e5f-8a9b-000000000000","to":"a1b2c3d4-0000-4e5f-8a9b-000000000001","amount":{"minorUnits":2105,"currency":"EUR"},"paymentMethod":"pm_card_visa"}"#,
                requiresIdempotencyKey: true, apps: .only(.household))]
            public static let idempotency: Idempotency? = .repeatable(
                because: "the Idempotency-Key names the payment: a repeat resumes it and charges once")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                /// The member paid.
                public var to: String
                public var amount: Money
                public var paymentMethod: String

                public init(householdId: String, to: String, amount: Money, paymentMethod: String) {
                    self.householdId = householdId
                    self.to = to
                    self.amount = amount
                    self.paymentMethod = paymentMethod
                }

                public static let fieldRules: [String: FieldRule] = [
                    "householdId": .uuid, "to": FieldRule.uuid.described("the member paid (their member id)"),
                    "amount": .described("in euros (EUR), from 0.50 to what the caller owes the member paid"),
                    "paymentMethod": Payments.paymentMethodRule,
                ]
            }

            public typealias Response = SettleUp
        }

        /// `payments.settle-ups.get.v1`
        public enum Get: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.settle-ups.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/settle-ups/{settleUpId}", name: "settleUp", access: .owner, errors: [.notFound, .forbidden],
                summary: "One of the caller's payments in the household app, asking the processor again while it is processing", apps: .only(.household))]

            public typealias Request = SettleUpReference
            public typealias Response = SettleUp
        }

        /// `payments.settle-ups.finish.v1`
        public enum Finish: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.settle-ups.finish.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/settle-ups/{settleUpId}/finished", name: "settleUpFinished", access: .owner, errors: [.notFound, .forbidden],
                summary: "Says the app finished what the bank asked (3-D Secure): the processor is asked how the payment ended", apps: .only(.household))]
            public static let idempotency: Idempotency? = .repeatable(because: "it asks the processor again; a payment is posted once")

            public typealias Request = SettleUpReference
            public typealias Response = SettleUp
        }
    }
}
