import RefundCalculatorContract
import Contracts
import Foundation
import ServiceSupport

/// What the refund-calculator service is configured with: read from its settings
/// (`refundCalculatorConfiguration()`), whose declarations hold the defaults.
public struct RefundCalculatorConfiguration: Sendable {
    /// Where contact requests go: the refund company's address.
    public var contactEmail: String
    /// Contact requests one email address may make in a day.
    public var contactsPerEmail: Int
    /// Contact requests one client IP may make in a day (campus networks share addresses).
    public var contactsPerIP: Int
    /// Contact requests are deleted this long after they were made.
    public var contactRetention: Duration
    /// The most scenarios one account keeps.
    public var scenariosPerAccount: Int
}

extension Setting {
    public static let refundContactEmail = Setting(
        "refund.contact.email", default: nil, help: "The refund company's address: contact requests are mailed there (and confirmed to the user).",
        provision: .required(.text("refunds@melon.localhost")))
    public static let refundContactsPerEmail = Setting(
        "refund.contacts.per.email", default: "3", help: "Contact requests one email address may make in 24 hours.", kind: .integer(1...1_000))
    public static let refundContactsPerIP = Setting(
        "refund.contacts.per.ip", default: "20", help: "Contact requests one client IP may make in 24 hours.", kind: .integer(1...100_000))
    public static let refundContactRetention = Setting(
        "refund.contact.retention", default: "7776000000", help: "Milliseconds a contact request is kept (90 days).", kind: .milliseconds(86_400_000...(3_650 * 86_400_000)))
    public static let refundScenariosPerAccount = Setting(
        "refund.scenarios.per.account", default: "100", help: "The most saved scenarios one account keeps.", kind: .integer(1...10_000))

    public static let refundCalculatorSettings: [Setting] = [
        .refundContactEmail, .refundContactsPerEmail, .refundContactsPerIP,
        .refundContactRetention, .refundScenariosPerAccount,
    ]
}

extension ProcessSettings {
    public func refundCalculatorConfiguration() throws -> RefundCalculatorConfiguration {
        let email = EmailAddress.normalized(try requiredString(.refundContactEmail))
        if let problem = EmailAddress.problem(email) {
            throw InvalidValue(setting: .refundContactEmail, value: email, expected: "an address like refunds@example.org (\(problem))")
        }
        return RefundCalculatorConfiguration(
            contactEmail: email, contactsPerEmail: try int(.refundContactsPerEmail), contactsPerIP: try int(.refundContactsPerIP),
            contactRetention: try milliseconds(.refundContactRetention), scenariosPerAccount: try int(.refundScenariosPerAccount))
    }
}
