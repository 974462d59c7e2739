import Bus
import PdfEmailContract
import Contracts
import Envelope
import Foundation
import Metrics
import PostgresNIO

/// The handlers of `pdf-email.mail.*`.
public struct MailHandlers: Sendable {
    public let composer: MailComposer
    public let repository: any MailRepository
    private let accepted = Counter(label: "melon_mail_accepted_total")

    public init(composer: MailComposer, repository: any MailRepository) {
        self.composer = composer
        self.repository = repository
    }

    /// `pdf-email.mail.send.v1`, outside the transaction: the mail checked and rendered.
    @Sendable
    public func compose(_ request: PdfEmail.Mail.Send.Request, _ context: RequestContext) async throws -> QueuedMail {
        let id = UUID()
        if let account = request.account, UUID(uuidString: account) == nil { throw OperationError.invalid(field: "data.account", "must be an account id") }
        let message = try composer.compose(request, id: id.uuidString.lowercased(), date: Date())
        return QueuedMail(
            id: id, sender: message.senderAddress, recipients: message.to, message: MIMEWriter.render(message),
            template: request.template?.name, requestedBy: context.attributes.source, requestID: context.attributes.id,
            replyTo: message.replyTo.map { MailMessage.address(in: $0).lowercased() }, account: request.account.flatMap(UUID.init(uuidString:)))
    }

    /// `pdf-email.mail.send.v1`, in the transaction that records the reply: the mail stored,
    /// `queued`. A retry (same idempotency key, or the same envelope id when there is none) gets the
    /// first answer without storing another.
    @Sendable
    public func send(_ mail: QueuedMail, _ context: RequestContext, on connection: PostgresConnection) async throws -> PdfEmail.Mail.Send.Response {
        try await repository.insert(mail, on: connection)
        accepted.increment()
        context.logger.info("mail accepted", metadata: [
            "mail_id": "\(mail.id)", "template": "\(mail.template ?? "-")", "recipients": "\(mail.recipients.count)",
            "bytes": "\(mail.message.count)", "requested_by": "\(mail.requestedBy)",
        ])
        return PdfEmail.Mail.Send.Response(id: mail.id.uuidString.lowercased(), status: .queued)
    }

    /// `pdf-email.mail.status.v1`.
    @Sendable
    public func status(_ request: PdfEmail.Mail.Status.Request, _ context: RequestContext) async throws -> PdfEmail.Mail.Status.Response {
        guard let id = UUID(uuidString: request.id) else {
            throw OperationError.invalid(field: "data.id", "must be a mail id (a UUID)")
        }
        guard let status = try await repository.status(id: id) else { throw PdfEmailError.mailNotFound(request.id) }
        return status
    }

    /// `pdf-email.account.erase.v1`: idempotent, so a repeat from the outbox changes nothing more.
    @Sendable
    public func erase(_ request: PdfEmail.Account.Erase.Request, _ context: RequestContext) async throws -> PdfEmail.Account.Erase.Response {
        if let problem = EmailAddress.problem(request.email) { throw OperationError.invalid(field: "data.email", problem) }
        guard let account = UUID(uuidString: request.account) else { throw OperationError.invalid(field: "data.account", "must be an account id") }
        let erased = try await repository.erase(account: account, address: request.email)
        context.logger.notice(
            "a deleted account's mail erased",
            metadata: ["account": "\(request.account)", "deleted": "\(erased.mailsDeleted)", "anonymised": "\(erased.mailsAnonymised)"])
        return erased
    }
}
