import Contracts
import Envelope
import Foundation

extension RefundCalculator {
    public enum ContactRequest {
        /// When the user would like to be called.
        public enum PreferredTime: String, Codable, Sendable, SchemaEnumeration {
            case morning, afternoon, evening, anytime
        }

        /// `refund-calculator.contact-request.create.v1`: asks the refund company to get in touch
        /// about a scenario. Stored, mailed to the company and confirmed to the user by mail.
        public enum Create: OperationDeclaration {
            public static let service = RefundCalculator.name
            public static let type = "refund-calculator.contact-request.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/refunds/contact-requests", name: "refundsContactRequest", status: .accepted, errors: [.rateLimited],
                summary: "Asks the refund company to call about the answers: mailed to the company, confirmed to the user; 3 a day per address",
                example: #"{"name":"Aoife Byrne","email":"aoife@example.ie","phone":"+353 87 555 0100","preferredTime":"morning","scenario":{"taxYear":2024,"status":"single","salaryCents":4320000,"taxPaidCents":550000}}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                /// 1 to 80 characters without control characters.
                public var name: String
                public var email: String
                /// 7 to 15 digits, optionally with a leading + and spaces, dashes or brackets.
                public var phone: String
                public var preferredTime: PreferredTime
                public var scenario: Scenario

                public init(name: String, email: String, phone: String, preferredTime: PreferredTime, scenario: Scenario) {
                    self.name = name
                    self.email = email
                    self.phone = phone
                    self.preferredTime = preferredTime
                    self.scenario = scenario
                }

                /// At most this many characters of phone number as typed.
                public static let phoneLength = 0...30

                public static let fieldRules: [String: FieldRule] = [
                    "name": .personName, "email": .email,
                    "phone": FieldRule.text(phoneLength).pattern("^\\+?[0-9 ().-]+$", meaning: "a phone number: digits, optionally with a leading + and spaces, dashes or brackets")
                        .described("7 to 15 digits"),
                ]
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var id: String
                /// `received`: stored, and the mails are on their way.
                public var status: String
                /// The estimate sent with the request.
                public var estimate: Estimate

                public init(id: String, status: String, estimate: Estimate) {
                    self.id = id
                    self.status = status
                    self.estimate = estimate
                }

                public static let fieldRules: [String: FieldRule] = ["status": .oneOf(["received"])]
            }
        }
    }

    public enum Account {
        /// `refund-calculator.account.erase.v1`: an account was deleted; its saved scenarios and the
        /// contact requests from its address go. Sent by `auth` through its outbox; repeats are harmless.
        public enum Erase: AccountEraseOperation {
            public static let service = RefundCalculator.name
            public static let type = "refund-calculator.account.erase.v1"
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds nothing left to erase")
            public typealias Request = AccountErasure

            public struct Response: Codable, Sendable, Equatable {
                public var scenariosDeleted: Int
                public var contactRequestsDeleted: Int

                public init(scenariosDeleted: Int, contactRequestsDeleted: Int) {
                    self.scenariosDeleted = scenariosDeleted
                    self.contactRequestsDeleted = contactRequestsDeleted
                }
            }
        }
    }
}
