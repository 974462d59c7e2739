import Crypto
import Foundation
import ServiceSupport

/// tax-form's settings.
public struct TaxFormConfiguration: Sendable {
    /// Wraps each account's data key (AES-256-GCM); from TAX_FORM_KEY.
    public var keyEncryptionKey: SymmetricKey

    public init(keyEncryptionKey: SymmetricKey) {
        self.keyEncryptionKey = keyEncryptionKey
    }
}

extension Setting {
    public static let taxFormKey = Setting(
        "tax.form.key", default: nil,
        help: "32 random bytes in base64 (openssl rand -base64 32): wraps each account's key, which seals its interview answers in the database.",
        isSecret: true)

    public static let taxFormSettings: [Setting] = [.taxFormKey]
}

extension ProcessSettings {
    public func taxFormConfiguration() throws -> TaxFormConfiguration {
        TaxFormConfiguration(keyEncryptionKey: SymmetricKey(data: try key256(.taxFormKey)))
    }
}
