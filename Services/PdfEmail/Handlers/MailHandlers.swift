import Bus
import PdfEmailContract
import Contracts
import Envelope
import Foundation
import Metrics

/// The handlers of `pdf-email.mail.*`.
public struct MailHandlers: Sendable {
    public let composer: MailComposer
    public let repository: any MailRepository
    private let accepted = Counter(label: "melon_mail_accepted_total")

    public init(composer: MailComposer, repository: any MailRepository) {
        self.composer = composer
        self.repository = repository
    }

    /// `pdf-email.mail.send.v1`: checks and renders the mail, stores it, answers `queued`. A retry
    /// (same idempotency key, or the same envelope id when there is none) gets the first answer.
    @Sendable
    public func send(_ request: PdfEmail.Mail.Send.Request, _ context: RequestContext) async throws -> PdfEmail.Mail.Send.Response {
        let id = UUID()
        let message = try composer.compose(request, id: id.uuidString.lowercased(), date: Date())
        let mail = QueuedMail(
            id: id, sender: message.senderAddress, recipients: message.to, message: MIMEWriter.render(message),
            template: request.template?.name, requestedBy: context.attributes.source, requestID: context.attributes.id)
        let response = try await repository.enqueue(
            mail, idempotencyKey: context.attributes.idempotencyKey ?? context.attributes.id, request: EnvelopeCodec().canonical(request))
        if response.id == id.uuidString.lowercased() {
            accepted.increment()
            context.logger.info("mail accepted", metadata: [
                "mail_id": "\(response.id)", "template": "\(request.template?.name ?? "-")", "recipients": "\(request.to.count)",
                "bytes": "\(mail.message.count)", "requested_by": "\(mail.requestedBy)",
            ])
        }
        return response
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
        let erased = try await repository.erase(address: request.email)
        context.logger.notice(
            "a deleted account's mail erased",
            metadata: ["account": "\(request.account)", "deleted": "\(erased.mailsDeleted)", "anonymised": "\(erased.mailsAnonymised)"])
        return erased
    }
}
