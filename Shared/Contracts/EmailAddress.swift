/// The email addresses Melon accepts: `local@domain` in the form every SMTP server takes (RFC 5321
/// §4.1.2 dot-atom local part of ASCII `atext`, a domain of letters, digits and hyphens with at least
/// one dot). Quoted local parts, address literals and comments are refused: no real user needs them,
/// and each is a way to smuggle text into headers.
public enum EmailAddress {
    /// The form addresses are stored and compared in: trimmed, lowercase. (The local part is
    /// case-sensitive by RFC 5321, but no real mailbox relies on it and users type either.)
    public static func normalized(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// Why `text` is not an acceptable address, or nil when it is.
    public static func problem(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return "must not be empty" }
        guard bytes.count <= 254 else { return "must be at most 254 bytes (RFC 5321)" }
        guard let at = bytes.lastIndex(of: UInt8(ascii: "@")) else { return "must look like name@example.org" }
        let local = bytes[..<at], domain = bytes[(at + 1)...]
        guard (1...64).contains(local.count) else { return "the part before @ must be 1 to 64 characters" }
        guard local.allSatisfy(isAtext), local.first != dot, local.last != dot, !hasDoubleDot(local) else {
            return "the part before @ may hold letters, digits, dots (not first, last or doubled) and !#$%&'*+/=?^_`{|}~-"
        }
        let labels = domain.split(separator: dot, omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy(isLabel) else {
            return "the domain must be names of letters, digits and hyphens separated by dots, like example.org"
        }
        return nil
    }

    private static let dot = UInt8(ascii: ".")

    private static func isAtext(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == dot || "!#$%&'*+/=?^_`{|}~-".utf8.contains(byte)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    private static func hasDoubleDot(_ bytes: ArraySlice<UInt8>) -> Bool {
        zip(bytes, bytes.dropFirst()).contains { $0 == dot && $1 == dot }
    }

    private static func isLabel(_ label: ArraySlice<UInt8>) -> Bool {
        (1...63).contains(label.count) && label.first != UInt8(ascii: "-") && label.last != UInt8(ascii: "-")
            && label.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") }
    }
}
