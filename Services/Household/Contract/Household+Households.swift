import Contracts
import Envelope
import Foundation

extension Household {
    public enum Households {
        /// `household.households.create.v1`: a new household with the caller as its owner.
        public enum Create: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.households.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households", name: "householdCreate", access: .owner, status: .created, errors: [.conflict],
                summary: "Creates a household with the caller as its owner (at most HOUSEHOLD_PER_ACCOUNT households each, 20)",
                example: #"{"name":"14 Pearse Street","currency":"EUR"}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                /// 1 to 80 characters without control characters.
                public var name: String
                public var currency: Currency

                public init(name: String, currency: Currency) {
                    self.name = name
                    self.currency = currency
                }

                public static let fieldRules: [String: FieldRule] = ["name": .personName]
            }

            public typealias Response = Household.View
        }

        /// `household.households.list.v1`: the households the caller belongs to, newest first.
        public enum List: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.households.list.v1"
            public static let http = [HTTPBinding(.get, "/v1/households", name: "householdsList", access: .owner, summary: "The households the caller belongs to, the one joined last first")]

            public typealias Request = Empty

            public struct Response: Codable, Sendable, Equatable {
                public var households: [Household.View]

                public init(households: [Household.View]) { self.households = households }
            }
        }

        /// `household.households.get.v1`: one of the caller's households with its members.
        public enum Get: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.households.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}", name: "householdGet", access: .member, errors: [.notFound],
                summary: "One of the caller's households with its members")]
            public typealias Request = Household.Reference
            public typealias Response = Household.View
        }

        /// `household.households.update.v1`: the owner changes the name or settings, naming the version read.
        public enum Update: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.households.update.v1"
            public static let http = [HTTPBinding(
                .patch, "/v1/households/{householdId}", name: "householdUpdate", access: .member, errors: [.notFound, .forbidden, .conflict],
                summary: "The owner changes the name or settings; a stale version is 409 with the household as it is",
                example: #"{"version":1,"simplifyDebts":false}"#)]
            public static let idempotency: Idempotency? = .repeatable(because: "it sets the same values again, or finds the version moved on")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                /// The version the change was made on.
                public var version: Int
                public var name: String?
                public var currency: Currency?
                public var simplifyDebts: Bool?
                public var reminderLeadMinutes: Int?

                public init(householdId: String, version: Int, name: String? = nil, currency: Currency? = nil, simplifyDebts: Bool? = nil,
                            reminderLeadMinutes: Int? = nil) {
                    self.householdId = householdId
                    self.version = version
                    self.name = name
                    self.currency = currency
                    self.simplifyDebts = simplifyDebts
                    self.reminderLeadMinutes = reminderLeadMinutes
                }

                public static let fieldRules: [String: FieldRule] = [
                    "householdId": FieldRule.uuid.described("the household id"), "version": .range(1...Int.max), "name": .personName,
                    "reminderLeadMinutes": .range(Bounds.reminderLeadMinutes),
                ]
            }

            public typealias Response = Household.View
        }
    }
}
