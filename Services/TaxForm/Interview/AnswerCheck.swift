import Contracts
import Envelope
import Foundation
import TaxFormContract

/// Checks answers against their questions' kinds, naming each field (`answers.days.thisYear`,
/// `answers.income.w2s[0].employerEIN`), and returns them normalised: an SSN as `123-45-6789`, a phone
/// number in E.164, an email address lowercased.
struct AnswerCheck {
    let questions: [String: InterviewScript.ScriptQuestion]
    let countries: Set<String>
    let states: Set<String>

    static let cents = TaxForm.W2.Bounds.cents
    static let textLength: ClosedRange<Int64> = 1...200

    func check(_ answers: TaxForm.Answers, year: Int, at path: String = "answers") -> (TaxForm.Answers, [OperationError.FieldIssue]) {
        var normalised: TaxForm.Answers = [:]
        var issues: [OperationError.FieldIssue] = []
        for id in answers.keys.sorted() {
            let field = "\(path).\(id)"
            guard let question = questions[id], question.applies(to: year) else {
                issues.append(.init(field: field, message: "is not a question of the \(year) interview"))
                continue
            }
            switch check(answers[id]!, question, field: field) {
            case .success(let value): normalised[id] = value
            case .failure(let problems): issues += problems.issues
            }
        }
        return (normalised, issues)
    }

    struct Problems: Error {
        var issues: [OperationError.FieldIssue]
        init(_ field: String, _ message: String) { issues = [.init(field: field, message: message)] }
        init(_ issues: [OperationError.FieldIssue]) { self.issues = issues }
    }

    func check(_ answer: TaxForm.Answer, _ question: InterviewScript.ScriptQuestion, field: String) -> Result<TaxForm.Answer, Problems> {
        func fail(_ message: String) -> Result<TaxForm.Answer, Problems> { .failure(Problems(field, message)) }
        switch (question.kind, answer) {
        case (.yesNo, .bool):
            return .success(answer)
        case (.choice, .text(let value)):
            let values = question.choices?.map(\.value) ?? []
            return values.contains(value) ? .success(answer) : fail("must be one of \(values.joined(separator: ", "))")
        case (.date, .text(let value)):
            return Self.isDate(value) ? .success(answer) : fail("must be a date, YYYY-MM-DD")
        case (.money, .integer(let value)), (.count, .integer(let value)):
            let range = (question.minimum ?? Self.cents.lowerBound)...(question.maximum ?? Self.cents.upperBound)
            return range.contains(value) ? .success(answer) : fail("must be from \(range.lowerBound.grouped) to \(range.upperBound.grouped)")
        case (.text, .text(let value)):
            let length = (question.minimum ?? Self.textLength.lowerBound)...(question.maximum ?? Self.textLength.upperBound)
            let text = value.trimmingCharacters(in: .whitespaces)
            if !length.contains(Int64(text.unicodeScalars.count)) { return fail("must be \(length.lowerBound) to \(length.upperBound) characters") }
            if text.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) { return fail("must not hold control characters") }
            if let pattern = question.pattern, (try? Regex(pattern).wholeMatch(in: text)) == nil {
                return fail("must be \(question.patternMeaning ?? "text matching \(pattern)")")
            }
            return .success(.text(text))
        case (.country, .text(let value)):
            return countries.contains(value) ? .success(answer) : fail("must be an ISO 3166-1 alpha-2 country code (GET /v1/tax/suggestions/countries)")
        case (.state, .text(let value)):
            return states.contains(value) ? .success(answer) : fail("must be a US state's two-letter code")
        case (.tin, .text(let value)):
            return Self.taxpayerNumber(value).map { .success(.text($0)) } ?? fail("must be an SSN or ITIN: 9 digits, as 123-45-6789")
        case (.phone, .text(let value)):
            return Self.phone(value).map { .success(.text($0)) } ?? fail("must be a phone number with its country code, as +1 617 555 0100 (E.164)")
        case (.email, .text(let value)):
            if let problem = EmailAddress.problem(value) { return fail(problem) }
            return .success(.text(EmailAddress.normalized(value)))
        case (.address, .object(let members)):
            return address(members, field: field)
        case (.w2List, .list(let items)):
            return w2s(items, field: field)
        default:
            return fail("must be \(question.kind.expected)")
        }
    }

    /// `value` without its surrounding spaces, when that is `length` Unicode scalars and holds no
    /// control character; nil otherwise.
    static func trimmed(_ value: String, length: ClosedRange<Int>) -> String? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard length.contains(trimmed.unicodeScalars.count), !trimmed.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            return nil
        }
        return trimmed
    }

    /// A real date from 1900 to 2100.
    static func isDate(_ text: String) -> Bool {
        CalendarDay.date(text) != nil && ("1900"..."2100").contains(text.prefix(4))
    }

    /// An SSN (area 001-899 but 666, group 01-99, serial 0001-9999) or an ITIN (9, then 50-65,
    /// 70-88, 90-92 or 94-99 in the middle), as `123-45-6789`; nil when it is neither.
    static func taxpayerNumber(_ text: String) -> String? {
        let digits = text.filter { $0 != "-" && $0 != " " }
        guard digits.count == 9, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
              let area = Int(digits.prefix(3)), let group = Int(digits.dropFirst(3).prefix(2)), let serial = Int(digits.suffix(4)) else { return nil }
        let formatted = "\(digits.prefix(3))-\(digits.dropFirst(3).prefix(2))-\(digits.suffix(4))"
        if area >= 900 {
            return [50...65, 70...88, 90...92, 94...99].contains { $0.contains(group) } ? formatted : nil
        }
        return area != 0 && area != 666 && group != 0 && serial != 0 ? formatted : nil
    }

    /// E.164: `+`, a country code not starting with 0, 7 to 15 digits in all; spaces, dashes, dots
    /// and brackets are dropped.
    static func phone(_ text: String) -> String? {
        let kept = text.filter { !" -.()".contains($0) }
        return kept.wholeMatch(of: /\+[1-9][0-9]{6,14}/) != nil ? kept : nil
    }

    func address(_ members: [String: TaxForm.Answer], field: String) -> Result<TaxForm.Answer, Problems> {
        var issues: [OperationError.FieldIssue] = []
        var out: [String: TaxForm.Answer] = [:]
        func text(_ name: String, required: Bool, length: ClosedRange<Int>) {
            switch members[name] {
            case .text(let value)?:
                if let trimmed = Self.trimmed(value, length: length) {
                    out[name] = .text(trimmed)
                } else {
                    issues.append(.init(field: "\(field).\(name)", message: "must be \(length.lowerBound) to \(length.upperBound) characters of text"))
                }
            case nil: if required { issues.append(.init(field: "\(field).\(name)", message: "is required")) }
            default: issues.append(.init(field: "\(field).\(name)", message: "must be text"))
            }
        }
        for name in members.keys where !["line1", "line2", "city", "state", "postalCode", "country"].contains(name) {
            issues.append(.init(field: "\(field).\(name)", message: "is not part of an address (line1, line2, city, state, postalCode, country)"))
        }
        text("line1", required: true, length: 1...100)
        text("line2", required: false, length: 1...100)
        text("city", required: true, length: 1...60)
        text("country", required: true, length: 2...2)
        let country = out["country"].flatMap { if case .text(let code) = $0 { code } else { nil } }
        if let country, !countries.contains(country) { issues.append(.init(field: "\(field).country", message: "must be an ISO 3166-1 alpha-2 country code")) }
        text("state", required: country == "US", length: 2...40)
        text("postalCode", required: country == "US", length: 2...12)
        if country == "US" {
            if case .text(let state)? = out["state"], !states.contains(state) { issues.append(.init(field: "\(field).state", message: "must be a US state's two-letter code")) }
            if case .text(let zip)? = out["postalCode"], zip.wholeMatch(of: /[0-9]{5}(-[0-9]{4})?/) == nil {
                issues.append(.init(field: "\(field).postalCode", message: "must be a ZIP code: 5 digits, or 5 and 4"))
            }
        }
        return issues.isEmpty ? .success(.object(out)) : .failure(Problems(issues))
    }

    func w2s(_ items: [TaxForm.Answer], field: String) -> Result<TaxForm.Answer, Problems> {
        guard items.count <= Self.maximumW2s else { return .failure(Problems(field, "must have at most \(Self.maximumW2s) W-2s")) }
        var issues: [OperationError.FieldIssue] = []
        var out: [TaxForm.Answer] = []
        for (index, item) in items.enumerated() {
            switch W2Check(states: states).check(item, field: "\(field)[\(index)]") {
            case .success(let w2): out.append(w2)
            case .failure(let problems): issues += problems.issues
            }
        }
        return issues.isEmpty ? .success(.list(out)) : .failure(Problems(issues))
    }

    static let maximumW2s = 20
}

extension TaxForm.Kind {
    var expected: String {
        switch self {
        case .yesNo: "true or false"
        case .choice: "one of the question's choices"
        case .date: "a date, YYYY-MM-DD"
        case .money: "a whole number of cents"
        case .count: "a whole number"
        case .text: "text"
        case .country: "an ISO 3166-1 alpha-2 country code"
        case .state: "a US state's two-letter code"
        case .tin: "an SSN or ITIN, as 123-45-6789"
        case .address: "an address object: line1, line2, city, state, postalCode, country"
        case .phone: "a phone number with its country code"
        case .email: "an email address"
        case .w2List: "a list of W-2s"
        }
    }
}
