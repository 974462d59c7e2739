import Envelope

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
