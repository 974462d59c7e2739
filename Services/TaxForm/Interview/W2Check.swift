import Envelope
import Foundation
import TaxFormContract

/// A W-2 as the interview takes it: its boxes checked (formats, box 2 not above box 1, each state
/// line whole), and the W-2s the return cannot use named, so the interview stops instead of
/// producing a wrong return.
struct W2Check {
    let states: Set<String>

    /// Box 12 codes the return handles: deferrals not in box 1 (D, E, F, G, S), employer HSA
    /// contributions (W) and health coverage (DD), information only (us-student-tax.md "W-2 boxes").
    static let supportedBox12: Set<String> = ["D", "E", "F", "G", "S", "W", "DD"]

    func check(_ answer: TaxForm.Answer, field: String) -> Result<TaxForm.Answer, AnswerCheck.Problems> {
        let w2: TaxForm.W2
        do {
            w2 = try answer.decoded(as: TaxForm.W2.self)
        } catch let error as DecodingError {
            return .failure(.init(field + Self.path(of: error), Self.message(of: error)))
        } catch {
            return .failure(.init(field, "must be a W-2"))
        }
        var issues: [OperationError.FieldIssue] = []
        func issue(_ name: String, _ message: String) { issues.append(.init(field: "\(field).\(name)", message: message)) }
        var normalised = w2
        /// A text box trimmed, or nil with an issue when it is not `length` Unicode scalars without control characters.
        func text(_ value: String, _ name: String, _ length: ClosedRange<Int>) -> String? {
            guard let trimmed = AnswerCheck.trimmed(value, length: length) else {
                issue(name, "must be \(length.lowerBound) to \(length.upperBound) characters, without control characters")
                return nil
            }
            return trimmed
        }
        normalised.employerName = text(w2.employerName, "employerName", TaxForm.W2.Bounds.employerName) ?? w2.employerName
        normalised.localityName = w2.localityName.flatMap { text($0, "localityName", TaxForm.W2.Bounds.localityName) }
        // ASCII digits only: `isNumber` also takes other scripts' digits, fractions and numerals.
        let isDigit = { (character: Character) in character.isASCII && character.isNumber }
        let ein = w2.employerEIN.filter(isDigit)
        if ein.count != 9 || w2.employerEIN.contains(where: { !isDigit($0) && $0 != "-" }) {
            issue("employerEIN", "must be an EIN: 9 digits, as 12-3456789")
        } else {
            normalised.employerEIN = "\(ein.prefix(2))-\(ein.suffix(7))"
        }
        if let tin = w2.employeeTIN {
            if let formatted = AnswerCheck.taxpayerNumber(tin) { normalised.employeeTIN = formatted } else { issue("employeeTIN", "must be an SSN or ITIN, as 123-45-6789") }
        }
        let amounts: [(String, Int64?)] = [
            ("wagesCents", w2.wagesCents), ("federalWithheldCents", w2.federalWithheldCents),
            ("socialSecurityWagesCents", w2.socialSecurityWagesCents), ("socialSecurityWithheldCents", w2.socialSecurityWithheldCents),
            ("medicareWagesCents", w2.medicareWagesCents), ("medicareWithheldCents", w2.medicareWithheldCents),
            ("localWagesCents", w2.localWagesCents), ("localWithheldCents", w2.localWithheldCents),
        ]
        for case let (name, amount?) in amounts where !TaxForm.W2.Bounds.cents.contains(amount) {
            issue(name, "must be from 0 to \(TaxForm.W2.Bounds.cents.upperBound.grouped) cents")
        }
        if w2.federalWithheldCents > w2.wagesCents { issue("federalWithheldCents", "box 2 cannot be more than box 1 (wagesCents)") }
        for (index, entry) in (w2.box12 ?? []).enumerated() {
            if entry.code.wholeMatch(of: /[A-Z]{1,2}/) == nil { issue("box12[\(index)].code", "must be a box 12 code: one or two capital letters") }
            if !TaxForm.W2.Bounds.cents.contains(entry.amountCents) { issue("box12[\(index)].amountCents", "must be from 0 to \(TaxForm.W2.Bounds.cents.upperBound.grouped) cents") }
        }
        if (w2.box12?.count ?? 0) > TaxForm.W2.Bounds.box12Entries.upperBound { issue("box12", "has at most 4 entries") }
        if (w2.states?.count ?? 0) > TaxForm.W2.Bounds.stateEntries.upperBound { issue("states", "has at most 2 lines") }
        for (index, line) in (w2.states ?? []).enumerated() {
            if !states.contains(line.state) { issue("states[\(index)].state", "must be a US state's two-letter code (box 15)") }
            if let id = line.employerStateID { normalised.states?[index].employerStateID = text(id, "states[\(index)].employerStateID", TaxForm.W2.Bounds.employerStateID) }
            if let wages = line.wagesCents, !TaxForm.W2.Bounds.cents.contains(wages) { issue("states[\(index)].wagesCents", "must not be negative") }
            if let withheld = line.withheldCents {
                if !TaxForm.W2.Bounds.cents.contains(withheld) { issue("states[\(index)].withheldCents", "must not be negative") }
                guard let wages = line.wagesCents else { issue("states[\(index)].wagesCents", "is required with state tax withheld (box 16 with box 17)"); continue }
                if withheld > wages { issue("states[\(index)].withheldCents", "box 17 cannot be more than box 16 (wagesCents)") }
            }
        }
        guard issues.isEmpty else { return .failure(.init(issues)) }
        return .success((try? TaxForm.Answer(normalised)) ?? answer)
    }

    /// Why the return cannot use `w2`, if it cannot.
    static func unsupported(_ w2: TaxForm.W2, index: Int) -> TaxForm.Stop? {
        if w2.statutoryEmployee == true {
            return .init(rule: "statutory-employee", reason: "W-2 \(index + 1) (\(w2.employerName)) has box 13 'Statutory employee' checked: that income belongs on Schedule C, which we do not prepare.",
                         help: Self.help)
        }
        if let code = w2.box12?.first(where: { !supportedBox12.contains($0.code) })?.code {
            return .init(rule: "unsupported-w2-code", reason: "W-2 \(index + 1) (\(w2.employerName)) has box 12 code \(code), which this return does not handle; we stop rather than file a wrong return.",
                         help: Self.help)
        }
        return nil
    }

    static let help = "A VITA site or a paid preparer can file a return with it; your university's international office can point you to one."

    static func path(of error: DecodingError) -> String {
        let context: DecodingError.Context? = switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context): context
        case .keyNotFound(let key, let context): .init(codingPath: context.codingPath + [key], debugDescription: context.debugDescription)
        @unknown default: nil
        }
        return (context?.codingPath ?? []).map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }

    static func message(of error: DecodingError) -> String {
        switch error {
        case .keyNotFound: "is required"
        case .typeMismatch(let type, _), .valueNotFound(let type, _): type == String.self ? "must be text" : type == Bool.self ? "must be true or false" : "must be a whole number of cents"
        default: "is not valid"
        }
    }
}
