import Crypto
import Foundation
import ServiceSupport

/// tax-form's settings.
public struct TaxFormConfiguration: Sendable {
    /// Wraps each account's data key (AES-256-GCM); from TAX_FORM_KEY.
    public var keyEncryptionKey: SymmetricKey
    /// PDFs an account can have filled for download in an hour (TAX_FORM_FILLS_PER_HOUR).
    public var fillsPerHour: Int

    public init(keyEncryptionKey: SymmetricKey, fillsPerHour: Int = 20) {
        self.keyEncryptionKey = keyEncryptionKey
        self.fillsPerHour = fillsPerHour
    }
}

extension Setting {
    public static let taxFormKey = Setting(
        "tax.form.key", default: nil,
        help: "32 random bytes in base64 (openssl rand -base64 32): wraps each account's key, which seals its interview answers in the database.",
        isSecret: true, provision: .required(.randomKey))

    public static let taxFormFillsPerHour = Setting(
        "tax.form.fills.per.hour", default: "20",
        help: "PDFs an account can have filled for download in an hour (a fill costs about a quarter of a second of CPU); a version already filled is served again without counting.",
        kind: .integer(1...10_000))

    public static let taxFormSettings: [Setting] = [.taxFormKey, .taxFormFillsPerHour]
}

extension ProcessSettings {
    public func taxFormConfiguration() throws -> TaxFormConfiguration {
        TaxFormConfiguration(keyEncryptionKey: SymmetricKey(data: try key256(.taxFormKey)), fillsPerHour: try int(.taxFormFillsPerHour))
    }
}
