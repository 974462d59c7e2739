import Contracts
import Envelope

extension TaxForm {
    /// What kind of answer a question takes.
    public enum Kind: String, Codable, Sendable, SchemaEnumeration {
        /// `true` or `false`.
        case yesNo = "yes-no"
        /// One of `choices`' values.
        case choice
        /// `YYYY-MM-DD`.
        case date
        /// Whole cents, not negative.
        case money
        /// A whole number between `minimum` and `maximum`.
        case count
        case text
        /// An ISO 3166-1 alpha-2 code (`GET /v1/tax/suggestions/countries`).
        case country
        /// A US state's two-letter code.
        case state
        /// An SSN or ITIN, `123-45-6789`: stored encrypted, shown as its last four digits.
        case tin
        /// `{line1, line2?, city, state?, postalCode?, country}`.
        case address
        /// E.164: `+` and up to 15 digits.
        case phone
        case email
        /// A list of W-2s (see `TaxForm.W2`).
        case w2List = "w2-list"
    }

    /// One question of the interview.
    public struct Question: Codable, Sendable, Equatable {
        public var id: String
        public var section: String
        public var kind: Kind
        /// In plain words, with the tax year filled in.
        public var prompt: String
        /// What it means and where to find the answer.
        public var help: String
        public var choices: [Choice]?
        public var minimum: Int64?
        public var maximum: Int64?
        /// The forms decision needs it: it cannot be skipped.
        public var decides: Bool
        /// What a skipped answer leaves out of the return.
        public var leavesOut: String?

        public init(
            id: String, section: String, kind: Kind, prompt: String, help: String, choices: [Choice]? = nil, minimum: Int64? = nil,
            maximum: Int64? = nil, decides: Bool, leavesOut: String? = nil
        ) {
            self.id = id
            self.section = section
            self.kind = kind
            self.prompt = prompt
            self.help = help
            self.choices = choices
            self.minimum = minimum
            self.maximum = maximum
            self.decides = decides
            self.leavesOut = leavesOut
        }
    }

    public struct Choice: Codable, Sendable, Equatable {
        public var value: String
        public var label: String

        public init(value: String, label: String) {
            self.value = value
            self.label = label
        }
    }

    /// A question still open: not answered, or skipped.
    public struct Missing: Codable, Sendable, Equatable {
        public var question: String
        public var section: String
        public var skipped: Bool
        /// What the return lacks without it.
        public var leavesOut: String?

        public init(question: String, section: String, skipped: Bool, leavesOut: String?) {
            self.question = question
            self.section = section
            self.skipped = skipped
            self.leavesOut = leavesOut
        }
    }

    /// Where a set of answers stands: the next questions, the forms decision with its reasons, every
    /// computed line, and what is missing or not covered.
    public struct Assessment: Codable, Sendable, Equatable {
        public var taxYear: Int
        /// Changes with any figure, rule or question.
        public var rulesVersion: String
        /// The next questions to ask, a few of one section; empty when nothing is left to ask.
        public var next: [Question]
        /// Absent until every question the decision needs is answered.
        public var decision: Decision?
        /// When the interview cannot go on: a case we do not prepare, or a W-2 we cannot use.
        public var stop: Stop?
        /// The computed forms (1040 and Schedule 1, or 1040-NR), when the forms include one.
        public var forms: [ComputedForm]
        /// Positive: a refund; negative: the amount owed. Absent without a computed return.
        public var refundCents: Int64?
        /// Questions not answered (or skipped) that apply.
        public var missing: [Missing]
        /// True when nothing is missing and nothing stops the return.
        public var complete: Bool
        /// Remarks on the answers (interest left off a 1040-NR, FICA withheld from an exempt student).
        public var notes: [String]
        /// What this service never prepares, said plainly with every assessment.
        public var notCovered: [String]

        public init(
            taxYear: Int, rulesVersion: String, next: [Question], decision: Decision?, stop: Stop?, forms: [ComputedForm], refundCents: Int64?,
            missing: [Missing], complete: Bool, notes: [String], notCovered: [String]
        ) {
            self.taxYear = taxYear
            self.rulesVersion = rulesVersion
            self.next = next
            self.decision = decision
            self.stop = stop
            self.forms = forms
            self.refundCents = refundCents
            self.missing = missing
            self.complete = complete
            self.notes = notes
            self.notCovered = notCovered
        }
    }
}
