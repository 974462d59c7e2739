import Envelope
import Foundation

extension RefundCalculator {
    /// `refund-calculator.estimate.make.v1`: the estimate for a scenario, however partial. Needs no
    /// account and stores nothing.
    public enum EstimateMake: BusOperation {
        public static let service = RefundCalculator.service
        public static let type = "refund-calculator.estimate.make.v1"
        public typealias Request = Scenario
        public typealias Response = Estimate
    }

    /// `refund-calculator.rules.version.v1`: which rules the service estimates with, so clients know
    /// when their cached help text and options are stale.
    public enum RulesVersion: BusOperation {
        public static let service = RefundCalculator.service
        public static let type = "refund-calculator.rules.version.v1"
        public typealias Request = Empty

        public struct Response: Codable, Sendable, Equatable {
            /// Changes whenever any rule, figure or help text changes.
            public var version: String
            /// The tax years an estimate may be for today (the refund window with rules), oldest first.
            public var taxYears: [Int]
            /// The year an estimate is for when the scenario does not say.
            public var defaultTaxYear: Int

            public init(version: String, taxYears: [Int], defaultTaxYear: Int) {
                self.version = version
                self.taxYears = taxYears
                self.defaultTaxYear = defaultTaxYear
            }
        }
    }

    /// One answer a field may take, for pickers.
    public struct Option: Codable, Sendable, Equatable {
        public var value: String
        public var label: String

        public init(value: String, label: String) {
            self.value = value
            self.label = label
        }
    }

    /// What a scenario field means, with the year's figures in the text.
    public struct FieldHelp: Codable, Sendable, Equatable {
        /// The field's path in the scenario, such as `spouse.incomeCents`.
        public var field: String
        public var label: String
        public var help: String
        /// The values the field takes, where it is a choice.
        public var options: [Option]?

        public init(field: String, label: String, help: String, options: [Option]? = nil) {
            self.field = field
            self.label = label
            self.help = help
            self.options = options
        }
    }

    /// `refund-calculator.help.get.v1`: help for every scenario field, for one tax year's rules.
    public enum HelpGet: BusOperation {
        public static let service = RefundCalculator.service
        public static let type = "refund-calculator.help.get.v1"

        public struct Request: Codable, Sendable, Equatable {
            /// The default tax year when left out.
            public var taxYear: Int?

            public init(taxYear: Int? = nil) { self.taxYear = taxYear }
        }

        public struct Response: Codable, Sendable, Equatable {
            public var taxYear: Int
            public var rulesVersion: String
            /// One entry per scenario answer.
            public var answers: [FieldHelp]

            public init(taxYear: Int, rulesVersion: String, answers: [FieldHelp]) {
                self.taxYear = taxYear
                self.rulesVersion = rulesVersion
                self.answers = answers
            }
        }
    }

    /// A scenario a signed-in user saved under a name.
    public struct SavedScenario: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var scenario: Scenario
        /// The estimate under today's rules; absent (with `problem`) when the rules no longer allow
        /// one, such as a tax year that has left the refund window.
        public var estimate: Estimate?
        public var problem: String?
        public var createdAt: Date
        public var updatedAt: Date

        public init(id: String, name: String, scenario: Scenario, estimate: Estimate? = nil, problem: String? = nil, createdAt: Date,
                    updatedAt: Date) {
            self.id = id
            self.name = name
            self.scenario = scenario
            self.estimate = estimate
            self.problem = problem
            self.createdAt = createdAt
            self.updatedAt = updatedAt
        }
    }

    public enum Scenarios {
        /// `refund-calculator.scenario.save.v1`: saves the caller's scenario under a name.
        public enum Save: BusOperation {
            public static let service = RefundCalculator.service
            public static let type = "refund-calculator.scenario.save.v1"

            public struct Request: Codable, Sendable, Equatable {
                /// 1 to 80 characters without control characters.
                public var name: String
                public var scenario: Scenario

                public init(name: String, scenario: Scenario) {
                    self.name = name
                    self.scenario = scenario
                }
            }

            public typealias Response = SavedScenario
        }

        /// `refund-calculator.scenario.list.v1`: the caller's saved scenarios, newest first, a page at a time.
        public enum List: BusOperation {
            public static let service = RefundCalculator.service
            public static let type = "refund-calculator.scenario.list.v1"

            public struct Request: Codable, Sendable, Equatable {
                /// 1 to 100; 20 when left out.
                public var limit: Int?
                /// The previous page's `nextBefore`.
                public var before: Int64?

                public init(limit: Int? = nil, before: Int64? = nil) {
                    self.limit = limit
                    self.before = before
                }
            }

            public struct Response: Codable, Sendable, Equatable {
                /// Without estimates: load one for its estimate.
                public var scenarios: [SavedScenario]
                public var nextBefore: Int64?

                public init(scenarios: [SavedScenario], nextBefore: Int64?) {
                    self.scenarios = scenarios
                    self.nextBefore = nextBefore
                }
            }
        }

        /// The id of one of the caller's scenarios.
        public struct Reference: Codable, Sendable, Equatable {
            public var id: String

            public init(id: String) { self.id = id }
        }

        /// `refund-calculator.scenario.get.v1`: one of the caller's scenarios with its estimate;
        /// `not_found` for anyone else's.
        public enum Get: BusOperation {
            public static let service = RefundCalculator.service
            public static let type = "refund-calculator.scenario.get.v1"
            public typealias Request = Reference
            public typealias Response = SavedScenario
        }

        /// `refund-calculator.scenario.update.v1`: replaces the name and answers of one of the caller's scenarios.
        public enum Update: BusOperation {
            public static let service = RefundCalculator.service
            public static let type = "refund-calculator.scenario.update.v1"

            public struct Request: Codable, Sendable, Equatable {
                public var id: String
                public var name: String
                public var scenario: Scenario

                public init(id: String, name: String, scenario: Scenario) {
                    self.id = id
                    self.name = name
                    self.scenario = scenario
                }
            }

            public typealias Response = SavedScenario
        }

        /// `refund-calculator.scenario.delete.v1`: deletes one of the caller's scenarios.
        public enum Delete: BusOperation {
            public static let service = RefundCalculator.service
            public static let type = "refund-calculator.scenario.delete.v1"
            public typealias Request = Reference

            public struct Response: Codable, Sendable, Equatable {
                public var deleted: Bool

                public init(deleted: Bool) { self.deleted = deleted }
            }
        }
    }

    public enum Contact {
        /// When the user would like to be called.
        public enum PreferredTime: String, Codable, Sendable, CaseIterable {
            case morning, afternoon, evening, anytime
        }

        /// `refund-calculator.contact-request.create.v1`: asks the refund company to get in touch
        /// about a scenario. Stored, mailed to the company and confirmed to the user by mail.
        public enum Create: BusOperation {
            public static let service = RefundCalculator.service
            public static let type = "refund-calculator.contact-request.create.v1"

            public struct Request: Codable, Sendable, Equatable {
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
            }

            public struct Response: Codable, Sendable, Equatable {
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
            }
        }
    }

    public enum Account {
        /// `refund-calculator.account.erase.v1`: an account was deleted; its saved scenarios and the
        /// contact requests from its address go. Sent by `auth` through its outbox; repeats are harmless.
        public enum Erase: BusOperation {
            public static let service = RefundCalculator.service
            public static let type = "refund-calculator.account.erase.v1"

            public struct Request: Codable, Sendable, Equatable {
                public var account: String
                public var email: String

                public init(account: String, email: String) {
                    self.account = account
                    self.email = email
                }
            }

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
