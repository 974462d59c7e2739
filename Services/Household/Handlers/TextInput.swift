import Envelope
import HouseholdContract

extension Validation {
    /// Text a member types (a note, a unit, a reference): trimmed, at most `bounds.upperBound`
    /// characters, without control or format characters (but newlines where `newlines`). Returns
    /// nil when absent or empty (in a change, empty clears a field); records a problem otherwise.
    mutating func checkText(_ raw: String?, _ field: String, _ bounds: ClosedRange<Int>, newlines: Bool = false) -> String? {
        guard let raw else { return nil }
        let text = raw.trimmingCharacters(in: newlines ? .whitespacesAndNewlines : .whitespaces)
        let hidden = text.unicodeScalars.contains { scalar in
            let category = scalar.properties.generalCategory
            return (category == .control && !(newlines && scalar == "\n")) || category == .format
        }
        check(bounds.contains(text.unicodeScalars.count) && !hidden, field, "must be up to \(bounds.upperBound) characters without control characters")
        return text.isEmpty ? nil : text
    }
}

extension Validation {
    /// A comment's text (on a chore or a post): trimmed, 1 to `Household.Bounds.note` characters,
    /// newlines allowed; `invalid` naming `data.text` otherwise.
    static func commentText(_ raw: String) throws(OperationError) -> String {
        var validation = Validation()
        let text = validation.checkText(raw, "data.text", Household.Bounds.note, newlines: true)
        validation.check(text != nil || !validation.isValid, "data.text", "must not be empty")
        try validation.finish()
        return text ?? ""
    }
}
