import AuthContract
import Foundation

/// What a new password must be: 8 to 256 characters (NIST SP 800-63B §3.1.1.2), no control
/// characters, and not one of the commonly breached passwords in `Data/common-passwords.txt`.
public struct PasswordPolicy: Sendable {
    public let common: Set<String>

    public init(common: Set<String>) {
        self.common = common
    }

    /// The policy with the shipped list.
    public static func bundled() throws -> PasswordPolicy {
        let url = Bundle.module.url(forResource: "common-passwords", withExtension: "txt", subdirectory: "Data")
            ?? Bundle.module.resourceURL!.appendingPathComponent("Data/common-passwords.txt")
        let text = try String(contentsOf: url, encoding: .utf8)
        return PasswordPolicy(common: Set(text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.lowercased() }))
    }

    /// Why `password` is refused, or nil.
    public func problem(_ password: String) -> String? {
        let length = password.unicodeScalars.count
        let bounds = Auth.Password.length
        guard bounds.contains(length) else { return "must be \(bounds.lowerBound) to \(bounds.upperBound) characters" }
        guard !password.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return "must not contain control characters"
        }
        guard !common.contains(password.lowercased()) else { return "is one of the most commonly used passwords; choose another" }
        return nil
    }
}
