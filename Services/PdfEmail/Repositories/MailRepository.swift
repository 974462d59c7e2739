import PdfEmailContract
import Contracts
import Foundation
import PostgresNIO

/// A composed mail as it is stored when accepted.
public struct QueuedMail: Sendable {
    public var id: UUID
    /// The SMTP envelope sender (the bare address of `MAIL_FROM`).
    public var sender: String
    public var recipients: [String]
    /// The rendered message: every attempt sends these bytes.
    public var message: [UInt8]
    public var template: String?
    /// The envelope `source` and `id` of the request that asked for it, for the logs.
    public var requestedBy: String
    public var requestID: String
    /// The message's Reply-To address: erased with its account like a recipient.
    public var replyTo: String?
    /// The account the mail was sent for: erased with it, whatever address it went to.
    public var account: UUID?

    public init(id: UUID, sender: String, recipients: [String], message: [UInt8], template: String?, requestedBy: String, requestID: String,
                replyTo: String? = nil, account: UUID? = nil) {
        self.account = account
        self.id = id
        self.sender = sender
        self.recipients = recipients
        self.message = message
        self.template = template
        self.requestedBy = requestedBy
        self.requestID = requestID
        self.replyTo = replyTo
    }
}

/// A mail a consumer has claimed for one delivery attempt.
public struct ClaimedMail: Sendable {
    public var id: UUID
    public var sender: String
    public var recipients: [String]
    public var message: [UInt8]
    /// Attempts including this one.
    public var attempts: Int
    /// Time since the mail was accepted, by the database's clock.
    public var age: Duration

    public init(id: UUID, sender: String, recipients: [String], message: [UInt8], attempts: Int, age: Duration) {
        self.id = id
        self.sender = sender
        self.recipients = recipients
        self.message = message
        self.attempts = attempts
        self.age = age
    }
}

/// What became of one delivery attempt.
public enum DeliveryOutcome: Sendable, Equatable {
    case sent
    /// Permanently refused, or out of time; the reason is kept.
    case failed(reply: String)
    /// Try again after `after`.
    case retry(after: Duration, reply: String)
}

/// The mails waiting for delivery.
public struct Backlog: Sendable, Equatable {
    public var queued: Int
    /// Age of the oldest queued mail, nil when none is queued.
    public var oldestAge: Duration?
}

/// Storage of outgoing mail: the queue the send operation fills and the delivery consumers drain.
public protocol MailRepository: Sendable {
    /// Stores `mail`, queued for delivery, in the caller's transaction; `gone` when it is for an
    /// account erased in the last 30 days.
    func insert(_ mail: QueuedMail, on connection: PostgresConnection) async throws
    /// Where mail `id` is, or nil when there is no such mail.
    func status(id: UUID) async throws -> PdfEmail.Mail.Status.Response?
    /// Claims up to `limit` due mails for one attempt each, leased for `lease`.
    func claimDue(limit: Int, lease: Duration) async throws -> [ClaimedMail]
    /// Records the outcome of the attempt `mail` was claimed for; a finished mail (sent or failed)
    /// keeps its envelope and outcome but not its message. A late record (another consumer claimed
    /// the mail since) changes nothing and returns false.
    @discardableResult
    func record(_ outcome: DeliveryOutcome, of mail: ClaimedMail) async throws -> Bool
    func backlog() async throws -> Backlog
    /// Remembers `account` as erased for 30 days (a mail for it arriving later is refused), deletes
    /// the mail sent for it (whatever its address) and the mail that went to
    /// `address` alone, and anonymises finished mail that went to it among others or named it as
    /// Reply-To (the address replaced, the message emptied). Mail still queued for others stays;
    /// queued mail that names it as Reply-To only is deleted.
    func erase(account: UUID, address: String) async throws -> PdfEmail.Account.Erase.Response
    /// Deletes mail sent or given up before `cutoff` ago: the rendered messages and the addresses in them.
    func prune(finishedBefore age: Duration, on connection: PostgresConnection) async throws -> Int
}
