import AuthContract
import Contracts
import Envelope
import Foundation
import NotificationsContract
import PdfEmailContract

/// The `tax-form` service: the student tax interview, residency, and the 1040 / 1040-NR / 8843 return.
public enum TaxForm: ServiceContract {
    public static let name = "tax-form"
    public static let summary = "the student tax interview, residency, and the 1040 / 1040-NR / 8843 return."
    /// Its signed-in routes are for the student tax helper.
    public static let apps = AppScope.only(.melon)
    public static let operations: [any OperationDeclaration.Type] = [
        Preview.Make.self, Questions.List.self, Suggestions.List.self, Interviews.Get.self, Interviews.Answer.self, Interviews.AddW2.self, Interviews.History.self, Interviews.Version.self,
        Interviews.Delete.self, Interviews.Filed.self, Deadlines.Get.self, Returns.Pdf.self, Returns.Email.self, Account.Erase.self,
        MyData.Export.self, MyData.Reads.self,
    ]
    public static let erase: (any AccountEraseOperation.Type)? = Account.Erase.self
    /// The return's PDF and its mail; deadline reminders; the password that confirms an export.
    public static let calls: [any OperationDeclaration.Type] = [
        PdfEmail.Forms.Fill.self, PdfEmail.Mail.Send.self, Notifications.Schedule.Set.self, Notifications.Schedule.Cancel.self, Auth.Password.Confirm.self,
    ]

    /// The answers to the interview, by question id (`GET /v1/tax/questions` lists them with their
    /// kinds).
    public typealias Answers = [String: Answer]

    /// One answer: `true`/`false`, a choice's value, `YYYY-MM-DD`, whole cents, a count, text, an ISO
    /// country code, a US state code, an SSN or ITIN, an address object, or a list of W-2s. Numbers
    /// are whole (never floating point); the service checks each answer against its question's kind.
    public enum Answer: Codable, Sendable, Equatable, Hashable, SchemaAnyValue {
        case bool(Bool)
        case integer(Int64)
        case text(String)
        case list([Answer])
        case object([String: Answer])

        public static let schemaSample = Answer.bool(true)
        /// The deepest answer is a W-2 list: list, W-2, box 12, entry, amount. An address is 2 deep.
        public static let schemaBounds = AnyValueBounds(depth: 5, bytes: 32_768)

        /// Decoded by its JSON kind: an array or an object is read once, member by member, and a
        /// problem inside names its path; nothing is tried twice, so the cost is the size of the value
        /// whatever its depth (the gateway refuses an answer deeper than `schemaBounds`; reading the
        /// coding path to check it here cost 13% of a large preview).
        public init(from decoder: any Decoder) throws {
            if var items = try? decoder.unkeyedContainer() {
                var list: [Answer] = []
                while !items.isAtEnd { list.append(try items.decode(Answer.self)) }
                self = .list(list)
            } else if let members = try? decoder.container(keyedBy: MemberKey.self) {
                var object: [String: Answer] = [:]
                for key in members.allKeys { object[key.stringValue] = try members.decode(Answer.self, forKey: key) }
                self = .object(object)
            } else {
                let container = try decoder.singleValueContainer()
                if let value = try? container.decode(Bool.self) {
                    self = .bool(value)
                } else if let value = try? container.decode(Int64.self) {
                    self = .integer(value)
                } else if let value = try? container.decode(String.self) {
                    self = .text(value)
                } else if (try? container.decode(Double.self)) != nil {
                    // 19.99 x 100 in floating point is 1998.9999999999998: say what is wrong with it.
                    throw DecodingError.dataCorruptedError(
                        in: container, debugDescription: "must be a whole number: amounts are whole cents (1999 for $19.99), never a fraction")
                } else {
                    throw DecodingError.dataCorruptedError(
                        in: container, debugDescription: "an answer is true or false, a whole number, text, a list or an object")
                }
            }
        }

        /// Any member name of an object answer.
        private struct MemberKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .bool(let value): try container.encode(value)
            case .integer(let value): try container.encode(value)
            case .text(let value): try container.encode(value)
            case .list(let value): try container.encode(value)
            case .object(let value): try container.encode(value)
            }
        }
    }

    /// How the year's forms come out.
    public enum Residency: String, Codable, Sendable, SchemaEnumeration {
        /// A resident alien (or citizen) for the whole year: Form 1040.
        case resident
        /// A nonresident alien for the whole year: Form 1040-NR with income, Form 8843 if exempt.
        case nonresident
        /// A case this service does not prepare (dual status, the closer-connection exception, the
        /// first-year choice, ...): `stop` says why and where to get help.
        case unsupported
    }

    public enum Form: String, Codable, Sendable, SchemaEnumeration {
        case f1040 = "1040"
        case f1040Schedule1 = "1040-schedule-1"
        case f1040NR = "1040-NR"
        case f8843 = "8843"
        /// Treaty-based return position disclosure: a resident alien's student treaty benefit.
        case f8833 = "8833"
        /// Claim for refund: Social Security and Medicare tax withheld in error.
        case f843 = "843"
        /// Form 843's companion for F, J and M visitors: what the employer paid back.
        case f8316 = "8316"
    }

    public enum FilingStatus: String, Codable, Sendable, SchemaEnumeration {
        case single
        case marriedJointly = "married-jointly"
        case marriedSeparately = "married-separately"
        case headOfHousehold = "head-of-household"
        case qualifyingSurvivingSpouse = "qualifying-surviving-spouse"
    }

    /// An immigration status held during a year.
    public enum Visa: String, Codable, Sendable, SchemaEnumeration {
        /// F-1 student.
        case f = "F"
        /// J-1 student.
        case jStudent = "J-student"
        /// J-1 scholar, teacher, trainee or researcher.
        case jScholar = "J-scholar"
        /// M-1 vocational student.
        case m = "M"
        /// Q cultural exchange visitor.
        case q = "Q"
        case h1b = "H-1B"
        case other
        /// Not in the United States that year (prior years only).
        case none
    }

    /// A rule the decision applied, in words, with the rule's id (stable, for clients and tests).
    public struct Reason: Codable, Sendable, Equatable {
        public var rule: String
        public var text: String

        public init(rule: String, text: String) {
            self.rule = rule
            self.text = text
        }
    }

    /// Why the interview stops, and where to get help.
    public struct Stop: Codable, Sendable, Equatable {
        /// A stable id: `dual-status`, `closer-connection`, `first-year-choice`, `unsupported-w2-code`, ...
        public var rule: String
        public var reason: String
        public var help: String

        public init(rule: String, reason: String, help: String) {
            self.rule = rule
            self.reason = reason
            self.help = help
        }
    }

    /// The forms decision.
    public struct Decision: Codable, Sendable, Equatable {
        public var residency: Residency
        /// The forms to file, the main one first; empty when none is needed or the case stops.
        public var forms: [Form]
        public var reasons: [Reason]
        public var stop: Stop?
        /// Days that count toward the substantial presence test: this year, last year, the year before.
        public var countedDays: [Int]
        /// This year's days plus a third of last year's and a sixth of the year before's, times six
        /// (an integer: 183 weighted days are 1,098 sixths; fractions are not rounded).
        public var weightedDaysInSixths: Int

        public init(
            residency: Residency, forms: [Form], reasons: [Reason], stop: Stop? = nil, countedDays: [Int], weightedDaysInSixths: Int
        ) {
            self.residency = residency
            self.forms = forms
            self.reasons = reasons
            self.stop = stop
            self.countedDays = countedDays
            self.weightedDaysInSixths = weightedDaysInSixths
        }
    }

    /// One line of a form: its amount in cents and as the form shows it (whole dollars, rounded as the
    /// IRS rounds: 50 cents and up to the next dollar), with the rule that made it.
    public struct Line: Codable, Sendable, Equatable {
        /// The form's own line number: `1a`, `16`, `35a`.
        public var line: String
        public var label: String
        public var cents: Int64
        public var dollars: Int64
        public var rule: String

        public init(line: String, label: String, cents: Int64, dollars: Int64, rule: String) {
            self.line = line
            self.label = label
            self.cents = cents
            self.dollars = dollars
            self.rule = rule
        }
    }

    /// A computed form.
    public struct ComputedForm: Codable, Sendable, Equatable {
        public var form: Form
        public var lines: [Line]

        public init(form: Form, lines: [Line]) {
            self.form = form
            self.lines = lines
        }

        /// The line numbered `line`, if the form has it.
        public subscript(line: String) -> Line? { lines.first { $0.line == line } }
    }
}
