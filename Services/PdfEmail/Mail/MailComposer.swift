import PdfEmailContract
import Contracts
import Envelope
import Foundation

/// Limits on what one mail may hold.
public struct MailLimits: Sendable {
    public var maxRecipients = 50
    public var maxAttachments = 10
    /// The attachments' bytes together (`MAIL_MAX_ATTACHMENT_BYTES`).
    public var maxAttachmentBytes = 5 << 20
    public var maxSubjectCharacters = 255
    /// Each body (text, HTML), in bytes.
    public var maxBodyBytes = 1 << 20
    /// Each template variable's value, in characters.
    public var maxVariableCharacters = 10_000

    public init() {}
}

/// Turns a `pdf-email.mail.send.v1` request into a `MailMessage`: checks every field (all problems
/// reported at once, each naming its field) and fills in the template.
public struct MailComposer: Sendable {
    public let templates: MailTemplates
    /// `MAIL_FROM`.
    public let from: String
    public let limits: MailLimits

    public init(templates: MailTemplates, from: String, limits: MailLimits = MailLimits()) {
        self.templates = templates
        self.from = from
        self.limits = limits
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
        validation.check((1...limits.maxRecipients).contains(request.to.count), "data.to", "must list 1 to \(limits.maxRecipients) addresses")
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
            let subject = request.subject ?? "", text = request.text ?? ""
            let subjectLength = subject.unicodeScalars.count
            if validation.check((1...limits.maxSubjectCharacters).contains(subjectLength), "data.subject", "must be 1 to \(limits.maxSubjectCharacters) characters") {
                validation.check(!subject.contains(where: \.isNewline), "data.subject", "must be one line")
            }
            validation.check((1...limits.maxBodyBytes).contains(text.utf8.count), "data.text", "must be 1 to \(limits.maxBodyBytes) bytes")
            if let html = request.html {
                validation.check((1...limits.maxBodyBytes).contains(html.utf8.count), "data.html", "must be 1 to \(limits.maxBodyBytes) bytes")
            }
            return (subject, text, request.html)
        }
        return nil
    }

    private func render(_ choice: PdfEmail.Mail.TemplateChoice, _ validation: inout Validation) -> (subject: String, text: String, html: String?)? {
        for (name, value) in choice.variables where value.count > limits.maxVariableCharacters {
            validation.fail("data.template.variables.\(name)", "must be at most \(limits.maxVariableCharacters) characters")
        }
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
        validation.check(files.count <= limits.maxAttachments, "data.attachments", "may hold at most \(limits.maxAttachments) files")
        for (index, file) in files.enumerated() {
            let field = "data.attachments[\(index)]"
            validation.check(
                (1...255).contains(file.name.count) && !file.name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.properties.generalCategory == .control }
                    && file.name != "." && file.name != "..",
                "\(field).name", "must be 1 to 255 characters without slashes or control characters")
            validation.check(
                file.mediaType.wholeMatch(of: /[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/) != nil,
                "\(field).mediaType", "must be a media type such as application/pdf")
            validation.check(!file.content.isEmpty, "\(field).content", "must not be empty")
        }
        let total = files.reduce(0) { $0 + $1.content.count }
        validation.check(total <= limits.maxAttachmentBytes, "data.attachments", "the files come to \(total) bytes; the limit is \(limits.maxAttachmentBytes)")
        return files.map { MailMessage.Attachment(name: $0.name, mediaType: $0.mediaType, bytes: [UInt8]($0.content)) }
    }
}
