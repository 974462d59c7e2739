import Foundation

/// Collects what is wrong with a request, field by field, so one `invalid` reply names every
/// problem at once instead of the first.
public struct Validation: Sendable {
    public private(set) var issues: [OperationError.FieldIssue] = []

    public init() {}

    /// Records that `field` (a path such as `data.to[1]`) is wrong, and why.
    public mutating func fail(_ field: String, _ message: String) {
        issues.append(OperationError.FieldIssue(field: field, message: message))
    }

    /// Records a problem unless `condition` holds; returns `condition`.
    @discardableResult
    public mutating func check(_ condition: Bool, _ field: String, _ message: String) -> Bool {
        if !condition { fail(field, message) }
        return condition
    }

    /// How long a name people type may be, in Unicode scalars (as JSON Schema counts).
    public static let nameLength = 1...80

    /// Records a problem unless `text` is a name people type: `nameLength` Unicode scalars, none of
    /// them a control, format or line/paragraph separator character (U+202E would turn the rest of a
    /// name around on screen; U+200B hides in it): display names, scenario names, contact names.
    public mutating func checkName(_ text: String, _ field: String) {
        let bounds = Self.nameLength
        let invisible: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
        check(
            bounds.contains(text.unicodeScalars.count) && !text.unicodeScalars.contains { invisible.contains($0.properties.generalCategory) },
            field, "must be \(bounds.lowerBound) to \(bounds.upperBound) characters without control, format or separator characters")
    }

    /// Text a member types (a note, a unit, a reference): trimmed, at most `bounds.upperBound`
    /// characters, without control or format characters (but newlines where `newlines`). Returns
    /// nil when absent or empty (in a change, empty clears a field); records a problem otherwise.
    public mutating func checkText(_ raw: String?, _ field: String, _ bounds: ClosedRange<Int>, newlines: Bool = false) -> String? {
        guard let raw else { return nil }
        let text = raw.trimmingCharacters(in: newlines ? .whitespacesAndNewlines : .whitespaces)
        let hidden = text.unicodeScalars.contains { scalar in
            let category = scalar.properties.generalCategory
            return (category == .control && !(newlines && scalar == "\n")) || category == .format
        }
        check(bounds.contains(text.unicodeScalars.count) && !hidden, field, "must be up to \(bounds.upperBound) characters without control characters")
        return text.isEmpty ? nil : text
    }

    /// Whether nothing was recorded yet.
    public var isValid: Bool { issues.isEmpty }

    /// Throws one `invalid` error naming every recorded field; returns when there is none.
    public func finish() throws(OperationError) {
        guard let first = issues.first else { return }
        let message = issues.count == 1 ? "\(first.field): \(first.message)" : "\(issues.count) fields are invalid; the first, \(first.field): \(first.message)"
        throw OperationError(.invalid, message, fields: issues)
    }
}
