/// Whether a message about a listing looks like it carries a phone number or an email address: the
/// usual start of a deal taken off the platform (and of most scams), which the app warns about. A
/// hint, not a filter: the message is delivered either way, flagged. Private chats are not scanned.
enum ContactScan {
    /// At least 9 digits in a run of digits, spaces, dots, dashes, slashes and parentheses (an Irish
    /// landline has 9, a mobile 10): prices, dates and room numbers have fewer.
    static let phoneDigits = 9

    static func looksLikeContact(_ text: String) -> Bool {
        hasPhoneNumber(text) || hasEmailAddress(text)
    }

    static func hasPhoneNumber(_ text: String) -> Bool {
        var digits = 0
        for character in text {
            if character.isASCII, character.isNumber {
                digits += 1
                if digits >= phoneDigits { return true }
            } else if !" .-/()+\u{00A0}".contains(character) {
                digits = 0
            }
        }
        return false
    }

    static func hasEmailAddress(_ text: String) -> Bool {
        let lowered = text.lowercased()
        // name@host.tld, and the spelled-out "name at host dot com" people use to slip past a filter.
        if lowered.contains(/[a-z0-9._%+-]+\s*@\s*[a-z][a-z0-9-]*(\s*\.\s*[a-z0-9-]+)*\s*\.\s*[a-z]{2,}/) { return true }
        return lowered.contains(/[a-z0-9._%+-]+\s*[\[(]?\s*\bat\b\s*[\])]?\s*[a-z0-9-]+\s*[\[(]?\s*\bdot\b\s*[\])]?\s*(com|ie|net|org|edu|co)\b/)
    }
}
