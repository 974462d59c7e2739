import Contracts
import Envelope
import Foundation

extension RefundCalculator {
    /// A scenario a signed-in user saved under a name.
    public struct SavedScenario: Codable, Sendable, Equatable, FieldRules {
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

        public static let fieldRules: [String: FieldRule] = ["problem": .described("why there is no estimate under today's rules")]
    }
}

extension RefundCalculator.Scenario {
    /// `refund-calculator.scenario.save.v1`: saves the caller's scenario under a name.
    public enum Save: OperationDeclaration {
        public static let service = RefundCalculator.name
        public static let type = "refund-calculator.scenario.save.v1"
        public static let http = [HTTPBinding(
            .post, "/v1/refunds/scenarios", name: "refundsScenarioSave", access: .owner, status: .created, errors: [.conflict],
            summary: "Saves the answers under a name for the caller (at most REFUND_SCENARIOS_PER_ACCOUNT, 100)",
            example: #"{"name":"2024 with the rent credit","scenario":{"taxYear":2024,"status":"single","salaryCents":4320000,"taxPaidCents":550000,"home":{"rentPaidCents":1200000}}}"#)]
        public static let idempotency: Idempotency? = .stored()

        public struct Request: Codable, Sendable, Equatable, FieldRules {
            /// 1 to 80 characters without control characters.
            public var name: String
            public var scenario: RefundCalculator.Scenario

            public init(name: String, scenario: RefundCalculator.Scenario) {
                self.name = name
                self.scenario = scenario
            }

            public static let fieldRules: [String: FieldRule] = ["name": .personName]
        }

        public typealias Response = RefundCalculator.SavedScenario
    }

    /// `refund-calculator.scenario.list.v1`: the caller's saved scenarios, newest first, a page at a time.
    public enum List: OperationDeclaration {
        public static let service = RefundCalculator.name
        public static let type = "refund-calculator.scenario.list.v1"
        public static let http = [HTTPBinding(
            .get, "/v1/refunds/scenarios", name: "refundsScenariosList", access: .owner, summary: "The caller's saved scenarios, newest first (without estimates)")]

        public typealias Request = PageRequest

        public struct Response: Codable, Sendable, Equatable, FieldRules {
            /// Without estimates: load one for its estimate.
            public var scenarios: [RefundCalculator.SavedScenario]
            public var nextAfter: Int64?

            public init(scenarios: [RefundCalculator.SavedScenario], nextAfter: Int64?) {
                self.scenarios = scenarios
                self.nextAfter = nextAfter
            }

            public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
        }
    }

    /// The id of one of the caller's scenarios.
    public struct Reference: Codable, Sendable, Equatable, FieldRules {
        public var id: String

        public init(id: String) { self.id = id }

        public static let fieldRules: [String: FieldRule] = ["id": FieldRule.uuid.described("the scenario id")]
    }

    /// `refund-calculator.scenario.get.v1`: one of the caller's scenarios with its estimate;
    /// `not_found` for anyone else's.
    public enum Get: OperationDeclaration {
        public static let service = RefundCalculator.name
        public static let type = "refund-calculator.scenario.get.v1"
        public static let http = [HTTPBinding(
            .get, "/v1/refunds/scenarios/{id}", name: "refundsScenarioGet", access: .owner, summary: "One of the caller's scenarios with its estimate under today's rules")]
        public typealias Request = Reference
        public typealias Response = RefundCalculator.SavedScenario
    }

    /// `refund-calculator.scenario.update.v1`: replaces the name and answers of one of the caller's scenarios.
    public enum Update: OperationDeclaration {
        public static let service = RefundCalculator.name
        public static let type = "refund-calculator.scenario.update.v1"
        public static let http = [HTTPBinding(
            .put, "/v1/refunds/scenarios/{id}", name: "refundsScenarioUpdate", access: .owner, summary: "Replaces the name and answers of one of the caller's scenarios")]
        public static let idempotency: Idempotency? = .repeatable(because: "it replaces the scenario with the same answers again")

        public struct Request: Codable, Sendable, Equatable, FieldRules {
            public var id: String
            public var name: String
            public var scenario: RefundCalculator.Scenario

            public init(id: String, name: String, scenario: RefundCalculator.Scenario) {
                self.id = id
                self.name = name
                self.scenario = scenario
            }

            public static let fieldRules: [String: FieldRule] = ["id": FieldRule.uuid.described("the scenario id"), "name": .personName]
        }

        public typealias Response = RefundCalculator.SavedScenario
    }

    /// `refund-calculator.scenario.delete.v1`: deletes one of the caller's scenarios.
    public enum Delete: OperationDeclaration {
        public static let service = RefundCalculator.name
        public static let type = "refund-calculator.scenario.delete.v1"
        public static let http = [HTTPBinding(.delete, "/v1/refunds/scenarios/{id}", name: "refundsScenarioDelete", access: .owner, summary: "Deletes one of the caller's scenarios")]
        public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds the scenario gone and answers not_found")
        public typealias Request = Reference

        public struct Response: Codable, Sendable, Equatable {
            public var deleted: Bool

            public init(deleted: Bool) { self.deleted = deleted }
        }
    }
}
