import Envelope
import HouseholdContract

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
