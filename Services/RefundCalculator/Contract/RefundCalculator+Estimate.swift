import Contracts
import Envelope
import Foundation

extension RefundCalculator.Estimate {
    /// `refund-calculator.estimate.make.v1`: the estimate for a scenario, however partial. Needs no
    /// account and stores nothing.
    public enum Make: OperationDeclaration {
        public static let service = RefundCalculator.name
        public static let type = "refund-calculator.estimate.make.v1"
        public static let http = [HTTPBinding(
            .post, "/v1/refunds/estimate", name: "refundsEstimate",
            summary: "The refund (or underpayment) for the answers so far, line by line with the rule behind each figure; no account needed",
            example: #"{"taxYear":2024,"status":"single","salaryCents":4320000,"taxPaidCents":550000,"home":{"rentPaidCents":1200000}}"#)]
        public static let idempotency: Idempotency? = .repeatable(because: "an estimate is computed from the answers alone and stores nothing")
        public typealias Request = RefundCalculator.Scenario
        public typealias Response = RefundCalculator.Estimate
    }
}

extension RefundCalculator {
    public enum Rules {
        /// `refund-calculator.rules.version.v1`: which rules the service estimates with, so clients know
        /// when their cached help text and options are stale.
        public enum Version: OperationDeclaration {
            public static let service = RefundCalculator.name
            public static let type = "refund-calculator.rules.version.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/refunds/rules", name: "refundsRules",
                summary: "The rules version (changes with any figure or help text) and the tax years an estimate may be for")]
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

    public enum Help {
        /// `refund-calculator.help.get.v1`: help for every scenario field, for one tax year's rules.
        public enum Get: OperationDeclaration {
            public static let service = RefundCalculator.name
            public static let type = "refund-calculator.help.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/refunds/help", name: "refundsHelp",
                summary: "Help for every answer, with the tax year's figures, and the choices of status and profession")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                /// The default tax year when left out.
                public var taxYear: Int?

                public init(taxYear: Int? = nil) { self.taxYear = taxYear }

                public static let fieldRules: [String: FieldRule] = ["taxYear": .range(1900...2100).described("the default tax year when left out")]
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
    }
}
