import Contracts
import Envelope
import Foundation

extension Household.Settlements {
    /// `household.settlements.payable.v1`: asked by `payments` before it charges a member's card to
    /// pay another member in the app (the seed's "pay an unpaid bill" in the app): whether `account`
    /// belongs to the household, and `to` is a member it owes at least `amount` in that currency.
    /// Anyone who does not belong, and any id that names nothing, gets the same `not_found`.
    public enum Payable: OperationDeclaration {
        public static let service = Household.name
        public static let type = "household.settlements.payable.v1"

        public struct Request: Codable, Sendable, Equatable, FieldRules {
            public var householdId: String
            /// The paying account (the caller `payments` acts for).
            public var account: String
            /// The member paid.
            public var to: String
            public var amount: Money

            public init(householdId: String, account: String, to: String, amount: Money) {
                self.householdId = householdId
                self.account = account
                self.to = to
                self.amount = amount
            }

            public static let fieldRules: [String: FieldRule] = ["householdId": .uuid, "account": .uuid, "to": .uuid]
        }

        public struct Response: Codable, Sendable, Equatable, FieldRules {
            /// The payer's member id.
            public var from: String
            /// The account of the member paid, for whom the money is held.
            public var payee: String
            /// What the payer owes the member paid in the amount's currency, as the balances show it.
            public var owed: Money

            public init(from: String, payee: String, owed: Money) {
                self.from = from
                self.payee = payee
                self.owed = owed
            }

            public static let fieldRules: [String: FieldRule] = ["from": .uuid, "payee": .uuid]
        }
    }

    /// `household.settlements.paid.v1`: sent by `payments` through its outbox once a payment in the
    /// app succeeded: recorded as a settlement from `from` to `to`, confirmed (the processor took
    /// the money), once per payment however often it is delivered. A payment given back to the
    /// payer's card (a refund, a dispute) comes the other way, with its `reference`.
    public enum Paid: OperationDeclaration {
        public static let service = Household.name
        public static let type = "household.settlements.paid.v1"
        public static let idempotency: Idempotency? = .repeatable(because: "a payment is recorded once: a repeat answers its settlement")

        public struct Request: Codable, Sendable, Equatable, FieldRules {
            public var householdId: String
            /// The payment at `payments`.
            public var paymentId: String
            public var from: String
            public var to: String
            public var amount: Money
            /// Absent for a payment; what happened otherwise ("Given back to the card").
            public var reference: String?

            public init(householdId: String, paymentId: String, from: String, to: String, amount: Money, reference: String? = nil) {
                self.householdId = householdId
                self.paymentId = paymentId
                self.from = from
                self.to = to
                self.amount = amount
                self.reference = reference
            }

            public static let fieldRules: [String: FieldRule] = [
                "householdId": .uuid, "paymentId": .uuid, "from": .uuid, "to": .uuid, "reference": .plainText(1...100),
            ]
        }

        public struct Response: Codable, Sendable, Equatable, FieldRules {
            /// The settlement recorded; absent when the household was deleted meanwhile.
            public var settlementId: String?

            public init(settlementId: String?) { self.settlementId = settlementId }

            public static let fieldRules: [String: FieldRule] = ["settlementId": .uuid]
        }
    }
}
