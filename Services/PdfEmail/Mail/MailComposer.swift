import PdfEmailContract
import Contracts
import Envelope
import Foundation

/// Turns a `pdf-email.mail.send.v1` request into a `MailMessage`: checks what the schema cannot
/// say (the kit has checked the request against it: counts, lengths, patterns), all problems
/// reported at once, each naming its field, and fills in the template.
public struct MailComposer: Sendable {
    public let templates: MailTemplates
    /// `MAIL_FROM`.
    public let from: String
    /// The attachments' bytes together (`MAIL_MAX_ATTACHMENT_BYTES`).
    public let maxAttachmentBytes: Int

    public init(templates: MailTemplates, from: String, maxAttachmentBytes: Int) {
        self.templates = templates
        self.from = from
        self.maxAttachmentBytes = maxAttachmentBytes
    }

    public func compose(_ request: PdfEmail.Mail.Send.Request, id: String, date: Date) throws(OperationError) -> MailMessage {
        var validation = Validation()
        checkAddresses(request, &validation)
        let content = checkContent(request, &validation)
        let attachments = checkAttachments(request.attachments ?? [], &validation)
        try validation.finish()
        guard let content else { throw OperationError(.internal, "the mail content was not checked") }
        return MailMessage(
            from: from, to: request.to, replyTo: request.replyTo, subject: content.subject, text: content.text, html: content.html,
            attachments: attachments, id: id, date: date)
    }

    private func checkAddresses(_ request: PdfEmail.Mail.Send.Request, _ validation: inout Validation) {
        for (index, address) in request.to.enumerated() {
            if let problem = EmailAddress.problem(address) { validation.fail("data.to[\(index)]", problem) }
        }
        if let replyTo = request.replyTo, let problem = EmailAddress.problem(replyTo) { validation.fail("data.replyTo", problem) }
    }

    private func checkContent(_ request: PdfEmail.Mail.Send.Request, _ validation: inout Validation) -> (subject: String, text: String, html: String?)? {
        let raw = request.subject != nil || request.text != nil || request.html != nil
        switch (request.template, raw) {
        case (let choice?, false):
            return render(choice, &validation)
        case (_?, true):
            validation.fail("data.template", "give either a template or a subject and text, not both")
        case (nil, false):
            validation.fail("data.template", "give a template, or a subject and text")
        case (nil, true):
            guard let subject = request.subject else {
                validation.fail("data.subject", "is needed with text")
                return nil
            }
            guard let text = request.text else {
                validation.fail("data.text", "is needed with a subject")
                return nil
            }
            validation.check(!subject.contains(where: \.isNewline), "data.subject", "must be one line")
            return (subject, text, request.html)
        }
        return nil
    }

    private func render(_ choice: PdfEmail.Mail.TemplateChoice, _ validation: inout Validation) -> (subject: String, text: String, html: String?)? {
        guard let template = templates.templates[choice.name] else {
            validation.fail("data.template.name", "there is no template \"\(choice.name)\"; the templates are \(templates.templates.keys.sorted().joined(separator: ", "))")
            return nil
        }
        for missing in template.variables.subtracting(choice.variables.keys).sorted() {
            validation.fail("data.template.variables.\(missing)", "the \(choice.name) template needs this value")
        }
        guard validation.isValid, let rendered = try? templates.render(choice.name, variables: choice.variables) else { return nil }
        return (rendered.subject, rendered.text, rendered.html)
    }

    private func checkAttachments(_ files: [PdfEmail.Mail.Attachment], _ validation: inout Validation) -> [MailMessage.Attachment] {
        for (index, file) in files.enumerated() {
            validation.check(
                !file.name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.properties.generalCategory == .control } && file.name != "." && file.name != "..",
                "data.attachments[\(index)].name", "must have no slashes or control characters, and not be . or ..")
        }
        let total = files.reduce(0) { $0 + $1.content.count }
        validation.check(total <= maxAttachmentBytes, "data.attachments", "the files come to \(total) bytes; the limit is \(maxAttachmentBytes)")
        return files.map { MailMessage.Attachment(name: $0.name, mediaType: $0.mediaType, bytes: [UInt8]($0.content)) }
    }
}
