import Contracts
import Envelope
import Foundation

extension TaxForm {
    /// A signed-in user's interview for one tax year, as every device sees it: the answers (personal
    /// ones masked), the skipped questions, the version to send with the next change, and where it
    /// stands.
    public struct Interview: Codable, Sendable, Equatable {
        public var taxYear: Int
        /// 0 before the first answer; each saved change adds one.
        public var version: Int
        /// SSNs and ITINs show their last four digits, a date of birth its month and day, passport
        /// and bank numbers their last four characters.
        public var answers: Answers
        public var skipped: [String]
        /// When the user marked the return filed.
        public var filedAt: Date?
        public var updatedAt: Date?
        public var assessment: Assessment
        /// In `GET` replies: answers about you (name, addresses, school) this interview lacks and
        /// your latest earlier interview has; `PATCH` with `carryOver: true` takes them.
        public var carryOver: CarryOver?

        public init(
            taxYear: Int, version: Int, answers: Answers, skipped: [String], filedAt: Date?, updatedAt: Date?, assessment: Assessment,
            carryOver: CarryOver? = nil
        ) {
            self.taxYear = taxYear
            self.version = version
            self.answers = answers
            self.skipped = skipped
            self.filedAt = filedAt
            self.updatedAt = updatedAt
            self.assessment = assessment
            self.carryOver = carryOver
        }
    }

    /// Answers an earlier year's interview can give this one.
    public struct CarryOver: Codable, Sendable, Equatable {
        public var fromYear: Int
        /// Question ids.
        public var questions: [String]

        public init(fromYear: Int, questions: [String]) {
            self.fromYear = fromYear
            self.questions = questions
        }
    }

    /// The interview of the caller for the year in the path.
    public struct InterviewReference: Codable, Sendable, Equatable, FieldRules {
        public static let fieldRules: [String: FieldRule] = ["taxYear": .range(TaxForm.taxYears)]
        public var taxYear: Int

        public init(taxYear: Int) { self.taxYear = taxYear }
    }

    public enum Interviews {
        /// `tax-form.interview.get.v1`: the caller's interview for a year (version 0 and nothing
        /// answered before the first change).
        public enum Get: OperationDeclaration {
            public static let service = TaxForm.name
            public static let type = "tax-form.interview.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/tax/interviews/{taxYear}", name: "taxInterviewGet", access: .owner,
                summary: "Your interview for a tax year, on any device: answers (personal ones masked), skipped questions, version and assessment")]
            public typealias Request = InterviewReference
            public typealias Response = Interview
        }

        /// `tax-form.interview.answer.v1`: saves answers (and clears or skips questions) against the
        /// version the client last saw. Another device's change in between: 409 with the interview
        /// as it is now (`current`), nothing lost on either side.
        public enum Answer: OperationDeclaration {
            public static let service = TaxForm.name
            public static let type = "tax-form.interview.answer.v1"
            public static let http = [HTTPBinding(
                .patch, "/v1/tax/interviews/{taxYear}", name: "taxInterviewAnswer", access: .owner, errors: [.conflict],
                summary: "Save answers against the version you last saw; 409 with the current interview when another device saved first")]
            public static let idempotency: Idempotency? = .repeatable(
                because: "a repeat carries the version it was made against, which has moved on: 409 with the interview as it is")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public static let fieldRules: [String: FieldRule] = [
                    "taxYear": .range(TaxForm.taxYears), "version": .range(0...1_000_000),
                    "answers": FieldRule.count(0...200).keys(1...60).described("answers by question id, each as its question's kind says"),
                    "clear": FieldRule.count(0...200).each(.text(1...60)), "skip": FieldRule.count(0...200).each(.text(1...60)),
                    "unskip": FieldRule.count(0...200).each(.text(1...60)),
                ]
                public var taxYear: Int
                /// The interview's version this change was made against.
                public var version: Int
                public var answers: Answers?
                /// Questions whose answers are removed.
                public var clear: [String]?
                /// Questions to answer later.
                public var skip: [String]?
                public var unskip: [String]?
                /// Take the answers about you this interview lacks from your latest earlier interview
                /// (`carryOver` of the `GET` reply lists them); `answers` in the same change win.
                public var carryOver: Bool?

                public init(
                    taxYear: Int, version: Int, answers: Answers? = nil, clear: [String]? = nil, skip: [String]? = nil, unskip: [String]? = nil,
                    carryOver: Bool? = nil
                ) {
                    self.taxYear = taxYear
                    self.version = version
                    self.answers = answers
                    self.clear = clear
                    self.skip = skip
                    self.unskip = unskip
                    self.carryOver = carryOver
                }
            }

            public typealias Response = Interview
        }

        /// `tax-form.wage-statement.add.v1`: adds one W-2 (a wage statement) to the interview's list, checked
        /// box by box.
        public enum AddW2: OperationDeclaration {
            public static let service = TaxForm.name
            public static let type = "tax-form.wage-statement.add.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/tax/interviews/{taxYear}/w2s", name: "taxWageStatementAdd", access: .owner, errors: [.conflict],
                summary: "Add a W-2, box by box, to your interview; an unsupported code or a statutory employee stops the interview with the reason")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat carries the version it was made against: 409, not a second W-2")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public static let fieldRules: [String: FieldRule] = ["taxYear": .range(TaxForm.taxYears), "version": .range(0...1_000_000)]
                public var taxYear: Int
                public var version: Int
                public var w2: W2

                public init(taxYear: Int, version: Int, w2: W2) {
                    self.taxYear = taxYear
                    self.version = version
                    self.w2 = w2
                }
            }

            public typealias Response = Interview
        }

        /// `tax-form.interview.history.v1`: the saved changes, newest first, kept as long as the
        /// interview (deleting it, or the account, deletes them).
        public enum History: OperationDeclaration {
            public static let service = TaxForm.name
            public static let type = "tax-form.interview.history.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/tax/interviews/{taxYear}/history", name: "taxInterviewHistory", access: .owner,
                summary: "Every saved change of your interview, newest first: which answers changed, from what to what (personal ones masked)")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public static let fieldRules: [String: FieldRule] = [
                    "taxYear": .range(TaxForm.taxYears), "after": FieldRule.range(1...1_000_000).described("the previous page's nextAfter: changes before that version"),
                    "limit": FieldRule.range(PageRequest.limits).described("changes per page, \(PageRequest.defaultLimit) when left out"),
                ]
                public var taxYear: Int
                public var after: Int?
                public var limit: Int?

                public init(taxYear: Int, after: Int? = nil, limit: Int? = nil) {
                    self.taxYear = taxYear
                    self.after = after
                    self.limit = limit
                }
            }

            public struct Response: Codable, Sendable, Equatable {
                public var changes: [Change]
                public var nextAfter: Int?

                public init(changes: [Change], nextAfter: Int?) {
                    self.changes = changes
                    self.nextAfter = nextAfter
                }
            }
        }

        /// `tax-form.interview.version.v1`: the answers as they were at an earlier version (what did
        /// I answer last week), rebuilt from the history, masked as the interview is.
        public enum Version: OperationDeclaration {
            public static let service = TaxForm.name
            public static let type = "tax-form.interview.version.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/tax/interviews/{taxYear}/versions/{version}", name: "taxInterviewVersion", access: .owner,
                summary: "Your answers as they were at an earlier version of the interview (personal ones masked); "
                    + "history is kept as long as the interview: deleting it, or the account, deletes its history")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public static let fieldRules: [String: FieldRule] = [
                    "taxYear": .range(TaxForm.taxYears),
                    "version": FieldRule.range(0...1_000_000).described("a version the history lists (0: before the first answer)"),
                ]
                public var taxYear: Int
                public var version: Int

                public init(taxYear: Int, version: Int) {
                    self.taxYear = taxYear
                    self.version = version
                }
            }

            public struct Response: Codable, Sendable, Equatable {
                public var taxYear: Int
                public var version: Int
                /// When that version was saved; absent for version 0.
                public var at: Date?
                public var answers: Answers
                public var skipped: [String]

                public init(taxYear: Int, version: Int, at: Date?, answers: Answers, skipped: [String]) {
                    self.taxYear = taxYear
                    self.version = version
                    self.at = at
                    self.answers = answers
                    self.skipped = skipped
                }
            }
        }

        /// `tax-form.interview.delete.v1`: deletes the caller's interview for a year and its history.
        public enum Delete: OperationDeclaration {
            public static let service = TaxForm.name
            public static let type = "tax-form.interview.delete.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/tax/interviews/{taxYear}", name: "taxInterviewDelete", access: .owner, summary: "Delete your interview for a tax year, with its history")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds nothing left and answers not_found")
            public typealias Request = InterviewReference

            public struct Response: Codable, Sendable, Equatable {
                public var deleted: Bool

                public init(deleted: Bool) { self.deleted = deleted }
            }
        }
    }

    /// One saved change.
    public struct Change: Codable, Sendable, Equatable {
        /// The version this change made.
        public var version: Int
        public var at: Date
        public var answers: [AnswerChange]
        public var skipped: [String]
        public var unskipped: [String]

        public init(version: Int, at: Date, answers: [AnswerChange], skipped: [String], unskipped: [String]) {
            self.version = version
            self.at = at
            self.answers = answers
            self.skipped = skipped
            self.unskipped = unskipped
        }
    }

    /// One answer's change: absent `from` is a first answer, absent `to` a cleared one. A change to
    /// one item of a list answer (a W-2 added, edited or removed) names the item's position in
    /// `item`, and `from` and `to` are that item alone.
    public struct AnswerChange: Codable, Sendable, Equatable {
        public var question: String
        /// The position (from 0) of the item of a list answer that changed.
        public var item: Int?
        public var from: Answer?
        public var to: Answer?

        public init(question: String, item: Int? = nil, from: Answer?, to: Answer?) {
            self.question = question
            self.item = item
            self.from = from
            self.to = to
        }
    }

    public enum Account {
        /// `tax-form.account.erase.v1`: a deleted account's interviews, history and data key go.
        public enum Erase: AccountEraseOperation {
            public static let service = TaxForm.name
            public static let type = "tax-form.account.erase.v1"
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds nothing left to erase")
            public typealias Request = AccountErasure

            public struct Response: Codable, Sendable, Equatable {
                public var interviewsDeleted: Int

                public init(interviewsDeleted: Int) { self.interviewsDeleted = interviewsDeleted }
            }
        }
    }
}
