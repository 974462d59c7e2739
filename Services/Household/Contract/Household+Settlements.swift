import Contracts
import Envelope
import Foundation

extension Household {
    /// A payment that settles debt: `amount` from one member to another.
    public struct Transfer: Codable, Sendable, Equatable, FieldRules {
        public var from: String
        public var to: String
        public var amount: Money

        public init(from: String, to: String, amount: Money) {
            self.from = from
            self.to = to
            self.amount = amount
        }

        public static let fieldRules: [String: FieldRule] = ["from": .uuid, "to": .uuid]
    }

    /// One member's balance in one currency: above zero they are owed, below zero they owe.
    public struct MemberBalance: Codable, Sendable, Equatable, FieldRules {
        public var memberId: String
        public var net: Money

        public init(memberId: String, net: Money) {
            self.memberId = memberId
            self.net = net
        }

        public static let fieldRules: [String: FieldRule] = ["memberId": .uuid]
    }

    /// The household's balances in one currency (no conversion between currencies).
    public struct CurrencyBalances: Codable, Sendable, Equatable {
        public var currency: Currency
        /// Every member with a balance other than zero, former members included until settled.
        public var members: [MemberBalance]
        /// Who pays whom to settle everything: the fewest transfers (at most members - 1) when the
        /// household simplifies debts, else each pair's debt netted.
        public var transfers: [Transfer]

        public init(currency: Currency, members: [MemberBalance], transfers: [Transfer]) {
            self.currency = currency
            self.members = members
            self.transfers = transfers
        }
    }

    /// A recorded payment between members: confirmed by the one paid, it counts in the balances.
    public struct Settlement: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var from: String
        public var to: String
        public var amount: Money
        /// A Venmo or bank transfer's reference, as the payer typed it.
        public var reference: String?
        public var recordedBy: String
        public var recordedAt: Date
        /// When the one paid confirmed it; until then it counts in no balance.
        public var confirmedAt: Date?
        /// The payment in the app (`GET /v1/settle-ups/{settleUpId}`) when it was paid there: confirmed
        /// by the processor, not by the one paid. Absent for a payment made elsewhere.
        public var paymentId: String?

        public init(id: String, from: String, to: String, amount: Money, reference: String?, recordedBy: String, recordedAt: Date, confirmedAt: Date?,
                    paymentId: String? = nil) {
            self.id = id
            self.from = from
            self.to = to
            self.amount = amount
            self.reference = reference
            self.recordedBy = recordedBy
            self.recordedAt = recordedAt
            self.confirmedAt = confirmedAt
            self.paymentId = paymentId
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "from": .uuid, "to": .uuid, "recordedBy": .uuid, "paymentId": .uuid]
    }

    public enum Balances {
        /// `household.balances.get.v1`
        public enum Get: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.balances.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/balances", name: "householdBalances", access: .member, errors: [.notFound],
                summary: "Each member's balance per currency and the transfers that settle them (simplified when the household says so)")]
            public typealias Request = Household.Reference

            public struct Response: Codable, Sendable, Equatable {
                /// One entry per currency with a balance other than zero, by currency code.
                public var currencies: [CurrencyBalances]
                public var simplified: Bool

                public init(currencies: [CurrencyBalances], simplified: Bool) {
                    self.currencies = currencies
                    self.simplified = simplified
                }
            }
        }

        /// `household.balances.remind.v1`: a push to members who owe the caller.
        public enum Remind: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.balances.remind.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/debt-reminders", name: "householdDebtReminders", access: .member, status: .accepted,
                errors: [.notFound, .rateLimited],
                summary: "Reminds one member, or every member, who owes the caller; each debtor at most once a day (429 beyond)",
                example: #"{"memberId":"a1b2c3d4-0000-4e5f-8a9b-000000000002"}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                /// Every debtor of the caller when absent.
                public var memberId: String?

                public init(householdId: String, memberId: String? = nil) {
                    self.householdId = householdId
                    self.memberId = memberId
                }

                public static let fieldRules: [String: FieldRule] = ["householdId": .uuid, "memberId": .uuid]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var reminded: Int

                public init(reminded: Int) { self.reminded = reminded }
            }
        }
    }

    public enum Settlements {
        public struct Reference: Codable, Sendable, Equatable, FieldRules {
            public var householdId: String
            public var settlementId: String

            public init(householdId: String, settlementId: String) {
                self.householdId = householdId
                self.settlementId = settlementId
            }

            public static let fieldRules: [String: FieldRule] = ["householdId": .uuid, "settlementId": FieldRule.uuid.described("the settlement id")]
        }

        /// `household.settlements.create.v1`: records a payment between members.
        public enum Create: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.settlements.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/settlements", name: "householdSettle", access: .member, status: .created, errors: [.notFound],
                summary: "Records a payment, partial or whole, from one member to another; the one paid confirms it (recorded by them, it counts at once)",
                example: #"{"to":"a1b2c3d4-0000-4e5f-8a9b-000000000001","amount":{"minorUnits":2105,"currency":"EUR"},"reference":"Revolut 27 Nov"}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                /// The caller when absent.
                public var from: String?
                /// The caller when absent (then `from` is needed).
                public var to: String?
                public var amount: Money
                public var reference: String?

                public init(householdId: String, from: String? = nil, to: String? = nil, amount: Money, reference: String? = nil) {
                    self.householdId = householdId
                    self.from = from
                    self.to = to
                    self.amount = amount
                    self.reference = reference
                }

                public static let fieldRules: [String: FieldRule] = [
                    "householdId": .uuid, "from": .uuid, "to": .uuid, "reference": .plainText(0...100),
                ]
            }

            public typealias Response = Household.Settlement
        }

        /// `household.settlements.confirm.v1`: the one paid says the money arrived.
        public enum Confirm: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.settlements.confirm.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/settlements/{settlementId}/confirm", name: "householdSettlementConfirm", access: .member,
                errors: [.notFound, .forbidden], summary: "The member paid confirms a settlement: from now it counts in the balances")]
            public static let idempotency: Idempotency? = .repeatable(because: "a confirmed settlement is answered as it is")
            public typealias Request = Reference
            public typealias Response = Household.Settlement
        }

        /// `household.settlements.list.v1`
        public enum List: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.settlements.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/settlements", name: "householdSettlementsList", access: .member, errors: [.notFound],
                summary: "The household's settlements, the last recorded first (keyset paging)")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var limit: Int?
                public var after: Int64?

                public init(householdId: String, limit: Int? = nil, after: Int64? = nil) {
                    self.householdId = householdId
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = PageRequest.fieldRules.merging(["householdId": .uuid]) { $1 }
                public var page: PageRequest { PageRequest(limit: limit, after: after) }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var settlements: [Household.Settlement]
                public var nextAfter: Int64?

                public init(settlements: [Household.Settlement], nextAfter: Int64?) {
                    self.settlements = settlements
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }
    }
}
