import Contracts
import Envelope
import Foundation
import PdfEmailContract

/// The `refund-calculator` service: Irish PAYE income-tax refund estimates.
public enum RefundCalculator: ServiceContract {
    public static let name = "refund-calculator"
    public static let summary = "Irish PAYE refund estimates, saved scenarios and contact requests."
    /// Its signed-in routes are for the refund estimator (its estimates need no session).
    public static let apps = AppScope.only(.refunds)
    public static let operations: [any OperationDeclaration.Type] = [
        Estimate.Make.self, Rules.Version.self, Help.Get.self,
        Scenario.Save.self, Scenario.List.self, Scenario.Get.self, Scenario.Update.self, Scenario.Delete.self,
        ContactRequest.Create.self, Account.Erase.self,
    ]
    public static let erase: (any AccountEraseOperation.Type)? = Account.Erase.self
    /// Contact requests go out as mail.
    public static let calls: [any OperationDeclaration.Type] = [PdfEmail.Mail.Send.self]

    /// Filing status and assessment.
    public enum Status: String, Codable, Sendable, SchemaEnumeration {
        case single
        /// Married or civil partners, jointly assessed, one income.
        case marriedOneIncome = "married-one-income"
        /// Married or civil partners, jointly assessed, two incomes.
        case marriedTwoIncomes = "married-two-incomes"
        case widowed
        case separated
    }

    /// A user's answers; every one optional, so a partial answer already gives an estimate. Money is
    /// in euro cents.
    public struct Scenario: Codable, Sendable, Equatable, FieldRules {
        /// The limits of the answers, checked by the gateway (the schema) and the estimator alike.
        public enum Bounds {
            /// Any amount: whole cents, not negative, at most 100,000,000.00.
            public static let cents: ClosedRange<Int64> = 0...10_000_000_000
            public static let dependentChildren = 0...20
        }

        public static let fieldRules: [String: FieldRule] = [
            "spouse": .described("counts for a jointly assessed couple with two incomes"),
            "taxYear": .described("in the refund window (GET /v1/refunds/rules); last year when left out"),
            "dateOfBirth": .date, "dependentChildren": .range(Bounds.dependentChildren),
            "salaryCents": .cents, "taxPaidCents": .cents, "otherIncomeCents": .cents, "profession": .profession,
            "jobseekersBenefitCents": .cents,
        ]

        public struct Spouse: Codable, Sendable, Equatable, FieldRules {
            public static let fieldRules: [String: FieldRule] = [
                "incomeCents": .cents, "taxPaidCents": .cents, "dateOfBirth": .date, "profession": .profession,
            ]

            public var incomeCents: Int64?
            public var taxPaidCents: Int64?
            /// `YYYY-MM-DD`.
            public var dateOfBirth: String?
            public var profession: String?

            public init(incomeCents: Int64? = nil, taxPaidCents: Int64? = nil, dateOfBirth: String? = nil, profession: String? = nil) {
                self.incomeCents = incomeCents
                self.taxPaidCents = taxPaidCents
                self.dateOfBirth = dateOfBirth
                self.profession = profession
            }
        }

        public struct Home: Codable, Sendable, Equatable, FieldRules {
            public static let fieldRules: [String: FieldRule] = ["rentPaidCents": .cents, "serviceChargesCents": .cents]

            public var rentPaidCents: Int64?
            /// Whether the home has a mortgage: the question before `mortgage`'s figures.
            public var hasMortgage: Bool?
            /// What the Mortgage Interest Tax Credit needs.
            public var mortgage: Mortgage?
            /// Bin, refuse or water charges paid.
            public var serviceChargesCents: Int64?

            public init(rentPaidCents: Int64? = nil, hasMortgage: Bool? = nil, mortgage: Mortgage? = nil, serviceChargesCents: Int64? = nil) {
                self.rentPaidCents = rentPaidCents
                self.hasMortgage = hasMortgage
                self.mortgage = mortgage
                self.serviceChargesCents = serviceChargesCents
            }
        }

        /// The mortgage on the home, as the Mortgage Interest Tax Credit counts it: the rise in
        /// interest over 2022, for a balance at the end of 2022 within the credit's range.
        public struct Mortgage: Codable, Sendable, Equatable, FieldRules {
            public static let fieldRules: [String: FieldRule] = [
                "interestPaidCents": .cents.described("euro cents of interest paid in the tax year"),
                "interest2022Cents": .cents.described("euro cents of interest paid on the same home in 2022"),
                "balanceEnd2022Cents": .cents.described("euro cents owed on 31 December 2022"),
            ]

            /// Interest paid in the tax year (the lender's certificate of mortgage interest).
            public var interestPaidCents: Int64?
            /// Interest paid on the same mortgage in 2022.
            public var interest2022Cents: Int64?
            /// The balance outstanding on 31 December 2022.
            public var balanceEnd2022Cents: Int64?

            public init(interestPaidCents: Int64? = nil, interest2022Cents: Int64? = nil, balanceEnd2022Cents: Int64? = nil) {
                self.interestPaidCents = interestPaidCents
                self.interest2022Cents = interest2022Cents
                self.balanceEnd2022Cents = balanceEnd2022Cents
            }
        }

        public struct Tuition: Codable, Sendable, Equatable, FieldRules {
            public static let fieldRules: [String: FieldRule] = ["feesCents": .cents]

            public var feesCents: Int64
            public var fullTime: Bool

            public init(feesCents: Int64, fullTime: Bool) {
                self.feesCents = feesCents
                self.fullTime = fullTime
            }
        }

        public struct Expenses: Codable, Sendable, Equatable, FieldRules {
            public static let fieldRules: [String: FieldRule] = ["medicalCents": .cents, "nursingHomeCents": .cents, "otherEmploymentCents": .cents]

            /// Net of what insurance or anyone else paid back.
            public var medicalCents: Int64?
            public var nursingHomeCents: Int64?
            public var tuition: Tuition?
            /// Employment expenses besides the flat-rate ones (not claimable through this estimate).
            public var otherEmploymentCents: Int64?

            public init(medicalCents: Int64? = nil, nursingHomeCents: Int64? = nil, tuition: Tuition? = nil, otherEmploymentCents: Int64? = nil) {
                self.medicalCents = medicalCents
                self.nursingHomeCents = nursingHomeCents
                self.tuition = tuition
                self.otherEmploymentCents = otherEmploymentCents
            }
        }

        public var taxYear: Int?
        public var status: Status?
        public var dateOfBirth: String?
        public var dependentChildren: Int?
        /// Annual salary before tax (PAYE).
        public var salaryCents: Int64?
        /// Income tax deducted in the year (the employment detail summary).
        public var taxPaidCents: Int64?
        /// A flat-rate expenses class (`nurse`, `teacher`, ... `none`).
        public var profession: String?
        public var tradeUnionMember: Bool?
        public var otherIncomeCents: Int64?
        /// The taxable part of Jobseeker's Benefit received in the year (the employment detail
        /// summary's Department of Social Protection line): income tax, no USC.
        public var jobseekersBenefitCents: Int64?
        public var spouse: Spouse?
        public var home: Home?
        public var expenses: Expenses?

        public init(taxYear: Int? = nil, status: Status? = nil, dateOfBirth: String? = nil, dependentChildren: Int? = nil,
                    salaryCents: Int64? = nil, taxPaidCents: Int64? = nil, profession: String? = nil, tradeUnionMember: Bool? = nil,
                    otherIncomeCents: Int64? = nil, jobseekersBenefitCents: Int64? = nil, spouse: Spouse? = nil, home: Home? = nil,
                    expenses: Expenses? = nil) {
            self.taxYear = taxYear
            self.status = status
            self.dateOfBirth = dateOfBirth
            self.dependentChildren = dependentChildren
            self.salaryCents = salaryCents
            self.taxPaidCents = taxPaidCents
            self.profession = profession
            self.tradeUnionMember = tradeUnionMember
            self.otherIncomeCents = otherIncomeCents
            self.jobseekersBenefitCents = jobseekersBenefitCents
            self.spouse = spouse
            self.home = home
            self.expenses = expenses
        }
    }

    /// One line of an estimate's breakdown.
    public struct Line: Codable, Sendable, Equatable, FieldRules {
        public static let fieldRules: [String: FieldRule] = [
            "source": .described("the rule and source the figure comes from: an index into the estimate's sources"),
        ]

        public enum Kind: String, Codable, Sendable, SchemaEnumeration {
            case income, deduction, band, grossTax = "gross-tax", credit, taxDue = "tax-due", taxPaid = "tax-paid", usc
        }

        public var kind: Kind
        public var label: String
        public var amountCents: Int64
        /// The rule the figure comes from: its index in the estimate's `sources`.
        public var source: Int

        public init(kind: Kind, label: String, amountCents: Int64, source: Int) {
            self.kind = kind
            self.label = label
            self.amountCents = amountCents
            self.source = source
        }
    }

    /// An answer that adds nothing, and why.
    public struct Warning: Codable, Sendable, Equatable {
        public var field: String
        public var message: String

        public init(field: String, message: String) {
            self.field = field
            self.message = message
        }
    }

    public struct Estimate: Codable, Sendable, Equatable, FieldRules {
        public static let fieldRules: [String: FieldRule] = [
            "currency": .oneOf(["EUR"]),
            "refundCents": .described("tax paid less tax due: positive is a refund, negative an underpayment"),
            "uscCents": .described("Universal Social Charge, not part of the refund"),
            "warnings": .described("answers that add nothing, and why"),
            "missing": .described("answers not given that would change the estimate"),
            "sources": .described("the rules and sources the lines' figures come from, each once"),
        ]

        public var taxYear: Int
        /// The rules the estimate was made with (see `refund-calculator.rules.version.v1`).
        public var rulesVersion: String
        public var currency: String
        /// Tax paid less tax due: positive is a refund, negative an underpayment.
        public var refundCents: Int64
        public var taxDueCents: Int64
        /// Universal Social Charge for the year (not reduced by credits; shown for the full picture).
        public var uscCents: Int64
        public var lines: [Line]
        /// The rules and sources of the lines, each once: several lines often share one (every credit
        /// of a year comes from the same source), so a line names its source by index.
        public var sources: [String]
        public var warnings: [Warning]
        /// Answers not given that would change the estimate.
        public var missing: [String]

        public init(taxYear: Int, rulesVersion: String, currency: String, refundCents: Int64, taxDueCents: Int64, uscCents: Int64,
                    lines: [Line], sources: [String], warnings: [Warning], missing: [String]) {
            self.taxYear = taxYear
            self.rulesVersion = rulesVersion
            self.currency = currency
            self.refundCents = refundCents
            self.taxDueCents = taxDueCents
            self.uscCents = uscCents
            self.lines = lines
            self.sources = sources
            self.warnings = warnings
            self.missing = missing
        }
    }
}

extension FieldRule {
    /// Euro cents of any answer.
    static let cents = FieldRule.range(RefundCalculator.Scenario.Bounds.cents).described("euro cents")
    static let date = FieldRule.pattern("^[0-9]{4}-[0-9]{2}-[0-9]{2}$", meaning: "a date YYYY-MM-DD").described("YYYY-MM-DD")
    static let profession = FieldRule.text(0...64)
        .described("a flat-rate expenses class; GET /v1/refunds/help lists them (nurse, teacher, ..., none)")
}
