import Foundation
import PostgresSupport
import ServiceKit
import ServiceSupport

/// tax-form's settings.
public struct TaxFormConfiguration: Sendable {
    /// Seals each account's data key; from TAX_FORM_KEY (and TAX_FORM_KEY_PREVIOUS during a rotation).
    public var keys: KeyRing
    /// PDFs an account can have filled for download in an hour (TAX_FORM_FILLS_PER_HOUR).
    public var fillsPerHour: Int
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

    public static let taxFormKeyPrevious = Setting.previousKeys(of: .taxFormKey)

    public static let taxFormSettings: [Setting] = [.taxFormKey, .taxFormKeyPrevious, .taxFormFillsPerHour]
}

extension ProcessSettings {
    public func taxFormConfiguration() throws -> TaxFormConfiguration {
        TaxFormConfiguration(keys: try keyRing(current: .taxFormKey, previous: .taxFormKeyPrevious), fillsPerHour: try int(.taxFormFillsPerHour))
    }
}
