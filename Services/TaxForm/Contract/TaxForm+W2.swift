import Contracts
import Envelope

extension TaxForm {
    /// A Form W-2 as printed, box by box. Amounts in cents.
    public struct W2: Codable, Sendable, Equatable, FieldRules {
        public enum Bounds {
            /// Any amount: whole cents, not negative, at most 100,000,000.00.
            public static let cents: ClosedRange<Int64> = 0...10_000_000_000
            public static let box12Entries = 0...4
            public static let stateEntries = 0...2
            public static let employerName = 1...120
            /// Box 15's employer state ID number.
            public static let employerStateID = 1...30
            /// Box 20.
            public static let localityName = 1...40
        }

        public static let fieldRules: [String: FieldRule] = [
            "employerName": .text(Bounds.employerName), "localityName": .text(Bounds.localityName), "employerEIN": .pattern(#"^\d{2}-?\d{7}$"#, meaning: "an EIN: 2 digits, a dash, 7 digits"),
            "employeeTIN": FieldRule.pattern(#"^\d{3}-?\d{2}-?\d{4}$"#, meaning: "an SSN or ITIN: 3, 2 and 4 digits").secret,
            "wagesCents": .range(Bounds.cents), "federalWithheldCents": .range(Bounds.cents),
            "socialSecurityWagesCents": .range(Bounds.cents), "socialSecurityWithheldCents": .range(Bounds.cents),
            "medicareWagesCents": .range(Bounds.cents), "medicareWithheldCents": .range(Bounds.cents),
            "box12": .count(Bounds.box12Entries), "states": .count(Bounds.stateEntries),
        ]

        public var employerName: String
        /// Box b.
        public var employerEIN: String
        /// Box a: the employee's SSN or ITIN, as printed.
        public var employeeTIN: String?
        /// Box 1: wages, tips, other compensation.
        public var wagesCents: Int64
        /// Box 2: federal income tax withheld.
        public var federalWithheldCents: Int64
        /// Boxes 3 to 6.
        public var socialSecurityWagesCents: Int64?
        public var socialSecurityWithheldCents: Int64?
        public var medicareWagesCents: Int64?
        public var medicareWithheldCents: Int64?
        /// Box 12: code and amount, at most four.
        public var box12: [Box12]?
        /// Box 13.
        public var statutoryEmployee: Bool?
        public var retirementPlan: Bool?
        public var thirdPartySickPay: Bool?
        /// Boxes 15 to 17, a line per state.
        public var states: [StateLine]?
        /// Boxes 18 to 20: local wages and tax (information only).
        public var localWagesCents: Int64?
        public var localWithheldCents: Int64?
        public var localityName: String?

        public struct Box12: Codable, Sendable, Equatable, FieldRules {
            public static let fieldRules: [String: FieldRule] = [
                "code": .pattern("^[A-Z]{1,2}$", meaning: "a box 12 code: one or two capital letters"), "amountCents": .range(W2.Bounds.cents),
            ]
            public var code: String
            public var amountCents: Int64

            public init(code: String, amountCents: Int64) {
                self.code = code
                self.amountCents = amountCents
            }
        }

        public struct StateLine: Codable, Sendable, Equatable, FieldRules {
            public static let fieldRules: [String: FieldRule] = [
                "state": .pattern("^[A-Z]{2}$", meaning: "a US state's two-letter code"), "employerStateID": .text(W2.Bounds.employerStateID),
                "wagesCents": .range(W2.Bounds.cents), "withheldCents": .range(W2.Bounds.cents),
            ]
            /// Box 15.
            public var state: String
            public var employerStateID: String?
            /// Box 16.
            public var wagesCents: Int64?
            /// Box 17.
            public var withheldCents: Int64?

            public init(state: String, employerStateID: String? = nil, wagesCents: Int64? = nil, withheldCents: Int64? = nil) {
                self.state = state
                self.employerStateID = employerStateID
                self.wagesCents = wagesCents
                self.withheldCents = withheldCents
            }
        }

        public init(
            employerName: String, employerEIN: String, employeeTIN: String? = nil, wagesCents: Int64, federalWithheldCents: Int64,
            socialSecurityWagesCents: Int64? = nil, socialSecurityWithheldCents: Int64? = nil, medicareWagesCents: Int64? = nil,
            medicareWithheldCents: Int64? = nil, box12: [Box12]? = nil, statutoryEmployee: Bool? = nil, retirementPlan: Bool? = nil,
            thirdPartySickPay: Bool? = nil, states: [StateLine]? = nil, localWagesCents: Int64? = nil, localWithheldCents: Int64? = nil,
            localityName: String? = nil
        ) {
            self.employerName = employerName
            self.employerEIN = employerEIN
            self.employeeTIN = employeeTIN
            self.wagesCents = wagesCents
            self.federalWithheldCents = federalWithheldCents
            self.socialSecurityWagesCents = socialSecurityWagesCents
            self.socialSecurityWithheldCents = socialSecurityWithheldCents
            self.medicareWagesCents = medicareWagesCents
            self.medicareWithheldCents = medicareWithheldCents
            self.box12 = box12
            self.statutoryEmployee = statutoryEmployee
            self.retirementPlan = retirementPlan
            self.thirdPartySickPay = thirdPartySickPay
            self.states = states
            self.localWagesCents = localWagesCents
            self.localWithheldCents = localWithheldCents
            self.localityName = localityName
        }
    }
}
