import Contracts
import Envelope

extension TaxForm {
    /// Tax years are checked against the years with rules (`GET /v1/tax/questions` lists them).
    public static let taxYears: ClosedRange<Int> = 2000...2100

    public enum Preview {
        /// `tax-form.preview.make.v1`: the forms decision, its reasons and every computed line for a set
        /// of answers, with no account and nothing stored: a "what if", and a way to check a return
        /// line by line from outside.
        public enum Make: OperationDeclaration {
            public static let service = TaxForm.name
            public static let type = "tax-form.preview.make.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/tax/returns/preview", name: "taxReturnPreview",
                summary: "The forms decision with its reasons, every computed line and what is missing, for answers sent with the request; no account needed")]
            public static let idempotency: Idempotency? = .repeatable(because: "a preview is computed from the answers alone and stores nothing")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public static let fieldRules: [String: FieldRule] = [
                    "taxYear": FieldRule.range(TaxForm.taxYears).described("a tax year with rules (GET /v1/tax/questions lists them)"),
                    "answers": FieldRule.count(0...200).keys(1...60).described("answers by question id, each as its question's kind says"),
                    "skipped": FieldRule.count(0...200).each(.text(1...60)),
                ]

                public var taxYear: Int
                public var answers: Answers
                /// Questions the user chose to answer later: not offered as next.
                public var skipped: [String]?

                public init(taxYear: Int, answers: Answers, skipped: [String]? = nil) {
                    self.taxYear = taxYear
                    self.answers = answers
                    self.skipped = skipped
                }
            }

            public typealias Response = Assessment
        }
    }

    public enum Questions {
        /// `tax-form.questions.list.v1`: every question of a tax year's interview, with its help.
        public enum List: OperationDeclaration {
            public static let service = TaxForm.name
            public static let type = "tax-form.questions.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/tax/questions", name: "taxQuestions", summary: "Every question of a tax year's interview, with its kind, help and what skipping it leaves out")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public static let fieldRules: [String: FieldRule] = [
                    "taxYear": FieldRule.range(TaxForm.taxYears).described("the newest year with rules when left out"),
                ]
                public var taxYear: Int?

                public init(taxYear: Int? = nil) { self.taxYear = taxYear }
            }

            public struct Response: Codable, Sendable, Equatable {
                public var taxYear: Int
                /// Every tax year with rules, oldest first.
                public var taxYears: [Int]
                public var rulesVersion: String
                public var sections: [Section]
                public var questions: [Question]

                public init(taxYear: Int, taxYears: [Int], rulesVersion: String, sections: [Section], questions: [Question]) {
                    self.taxYear = taxYear
                    self.taxYears = taxYears
                    self.rulesVersion = rulesVersion
                    self.sections = sections
                    self.questions = questions
                }
            }
        }
    }

    public struct Section: Codable, Sendable, Equatable {
        public var id: String
        public var title: String

        public init(id: String, title: String) {
            self.id = id
            self.title = title
        }
    }
}
