import Foundation
import PdfEmailContract
import Contracts
import PostgresSupport
import ServiceSupport

/// What the pdf-email service is configured with.
public struct PdfEmailConfiguration: Sendable {
    /// Where rendered mail goes.
    public enum Transport: Sendable {
        case smtp(SMTPTransport.Configuration)
        /// The local default: `.eml` files in a folder.
        case spool(URL)
    }

    /// `MAIL_FROM`: the sender of every mail.
    public var from: String
    public var transport: Transport
    /// `MAIL_MAX_ATTACHMENT_BYTES`: the attachments' bytes together.
    public var maxAttachmentBytes: Int
    public var delivery: MailDeliveryConfiguration
    /// `MAIL_RETENTION`: how long a sent or failed mail (its message and addresses) is kept.
    public var retention: Duration

    /// The values come from the pdf-email settings (`pdfEmailConfiguration()`), whose declarations
    /// hold the defaults.
    public init(from: String, transport: Transport, maxAttachmentBytes: Int, delivery: MailDeliveryConfiguration, retention: Duration) {
        self.from = from
        self.transport = transport
        self.maxAttachmentBytes = maxAttachmentBytes
        self.delivery = delivery
        self.retention = retention
    }
}

extension Setting {
    public static let smtpURL = Setting(
        "smtp.url", default: nil,
        help: "smtp://host:587 (STARTTLS, required beyond loopback) or smtps://host:465 (TLS from the start); credentials in the URL or in SMTP_USER and SMTP_PASSWORD. Unset: mail is written to MAIL_SPOOL_DIR.",
        isSecret: true, provision: .perDeployment)
    public static let smtpUser = Setting("smtp.user", default: nil, help: "SMTP AUTH user name.", provision: .perDeployment)
    public static let smtpPassword = Setting("smtp.password", default: nil, help: "SMTP AUTH password.", isSecret: true, provision: .perDeployment)
    public static let smtpCAFile = Setting(
        "smtp.ca.file", default: nil, help: "PEM file of CA certificates to trust for the SMTP server instead of the system's.")
    public static let smtpTimeout = Setting("smtp.timeout", default: "30000", help: "Milliseconds one SMTP transaction may take.", kind: .milliseconds(1_000...600_000))
    public static let mailFrom = Setting(
        "mail.from", default: "Melon <no-reply@melon.localhost>", help: "Sender of every mail: an address, or Name <address>.", provision: .perDeployment)
    public static let mailSpoolDir = Setting(
        "mail.spool.dir", default: ".data/mail", help: "Folder for .eml files when SMTP_URL is not set.")
    public static let mailMaxAge = Setting(
        "mail.max.age", default: "86400000", help: "Milliseconds after acceptance when an undelivered mail is given up as failed.", kind: .milliseconds(1_000...(30 * 86_400_000)))
    public static let mailRetryFirst = Setting(
        "mail.retry.first", default: "2000", help: "Milliseconds before the first retry; doubled per attempt, with jitter.", kind: .milliseconds(10...3_600_000))
    public static let mailRetryMax = Setting("mail.retry.max", default: "300000", help: "Longest wait between two attempts, in milliseconds.", kind: .milliseconds(10...86_400_000))
    public static let mailMaxAttachmentBytes = Setting(
        "mail.max.attachment.bytes", default: "5242880", help: "Largest total size of one mail's attachments, in bytes (base64 makes them a third larger on the bus).",
        kind: .integer(1...PdfEmail.Mail.Attachment.maxBytes))
    public static let mailConcurrency = Setting("mail.concurrency", default: "4", help: "Mails this instance sends at once.", kind: .integer(1...64))
    public static let mailRetention = Setting(
        "mail.retention", default: "2592000000",
        help: "Milliseconds a sent or failed mail (its message and the addresses in it) is kept before it is deleted.",
        kind: .milliseconds(3_600_000...315_360_000_000))

    /// Everything the pdf-email service reads, besides the bus and probe settings.
    public static let pdfEmailSettings: [Setting] = [
        .smtpURL, .smtpUser, .smtpPassword, .smtpCAFile, .smtpTimeout, .mailFrom, .mailSpoolDir,
        .mailMaxAge, .mailRetryFirst, .mailRetryMax, .mailMaxAttachmentBytes, .mailConcurrency, .mailRetention,
    ]
}

extension ProcessSettings {
    public func pdfEmailConfiguration() throws -> PdfEmailConfiguration {
        let from = try requiredString(.mailFrom)
        if let problem = EmailAddress.problem(MailMessage.address(in: from)) {
            throw InvalidValue(setting: .mailFrom, value: from, expected: "an address or Name <address> (the address \(problem))")
        }
        let timeout = try milliseconds(.smtpTimeout)
        let transport: PdfEmailConfiguration.Transport
        if let url = string(.smtpURL), !url.isEmpty {
            guard let components = URLComponents(string: url), ["smtp", "smtps"].contains(components.scheme ?? ""), components.host?.isEmpty == false else {
                throw InvalidValue(setting: .smtpURL, value: url, expected: "smtp://host:port or smtps://host:port")
            }
            let caFile = string(.smtpCAFile).flatMap { $0.isEmpty ? nil : $0 }
            if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
                throw InvalidValue(setting: .smtpCAFile, value: caFile, expected: "a readable PEM file")
            }
            transport = .smtp(.init(url: url, user: string(.smtpUser), password: string(.smtpPassword), timeout: timeout, caFile: caFile))
        } else {
            transport = .spool(URL(fileURLWithPath: try requiredString(.mailSpoolDir)))
        }
        let first = try milliseconds(.mailRetryFirst)
        let maximum = try milliseconds(.mailRetryMax)
        guard maximum >= first else {
            throw InvalidValue(setting: .mailRetryMax, value: "\(maximum.milliseconds)", expected: "at least MAIL_RETRY_FIRST")
        }
        let delivery = MailDeliveryConfiguration(
            concurrency: try int(.mailConcurrency), lease: max(.seconds(60), timeout * 2), retry: RetryPolicy(first: first, maximum: maximum),
            maxAge: try milliseconds(.mailMaxAge))
        return PdfEmailConfiguration(from: from, transport: transport, maxAttachmentBytes: try int(.mailMaxAttachmentBytes), delivery: delivery, retention: try milliseconds(.mailRetention))
    }
}
