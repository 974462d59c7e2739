import Contracts
import Envelope
import Foundation

extension TaxForm {
    public enum Deadlines {
        /// `tax-form.deadlines.get.v1`: the filing calendar of a tax year, the deadline that applies
        /// to the caller's interview once its forms are decided, and the reminders set before it.
        public enum Get: OperationDeclaration {
            public static let service = TaxForm.name
            public static let type = "tax-form.deadlines.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/tax/deadlines", name: "taxDeadlines", access: .owner,
                summary: "The tax calendar of a year, the deadline your forms have once they are decided, and the reminders before it")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public static let fieldRules: [String: FieldRule] = [
                    "taxYear": FieldRule.range(TaxForm.taxYears).described("last year's when left out"),
                ]
                public var taxYear: Int?

                public init(taxYear: Int? = nil) { self.taxYear = taxYear }
            }

            public struct Response: Codable, Sendable, Equatable {
                public var taxYear: Int
                /// The filing deadlines of the year, each moved past weekends and Washington DC holidays.
                public var calendar: [Deadline]
                /// The deadline of the caller's forms (`YYYY-MM-DD`); absent until they are decided.
                public var due: String?
                public var reason: String?
                /// Reminders before `due` (a push 30, 7 and 1 days before, at 10:00 local time).
                public var reminders: [Reminder]
                /// Once the caller marked the return filed: no more reminders.
                public var filedAt: Date?

                public init(taxYear: Int, calendar: [Deadline], due: String?, reason: String?, reminders: [Reminder], filedAt: Date?) {
                    self.taxYear = taxYear
                    self.calendar = calendar
                    self.due = due
                    self.reason = reason
                    self.reminders = reminders
                    self.filedAt = filedAt
                }
            }
        }
    }

    public struct Deadline: Codable, Sendable, Equatable {
        /// `YYYY-MM-DD`.
        public var date: String
        public var what: String

        public init(date: String, what: String) {
            self.date = date
            self.what = what
        }
    }

    public struct Reminder: Codable, Sendable, Equatable {
        public var daysBefore: Int
        /// `YYYY-MM-DD`.
        public var date: String

        public init(daysBefore: Int, date: String) {
            self.daysBefore = daysBefore
            self.date = date
        }
    }
}

extension TaxForm.Interviews {
    /// `tax-form.interview.filed.v1`: the user mailed the forms; the deadline reminders stop.
    public enum Filed: OperationDeclaration {
        public static let service = TaxForm.name
        public static let type = "tax-form.interview.filed.v1"
        public static let http = [HTTPBinding(
            .post, "/v1/tax/interviews/{taxYear}/filed", name: "taxInterviewFiled", access: .owner, summary: "Mark your return filed: the deadline reminders stop")]
        public static let idempotency: Idempotency? = .repeatable(because: "marking filed again keeps the first time and changes nothing")
        public typealias Request = TaxForm.InterviewReference
        public typealias Response = TaxForm.Interview
    }
}
