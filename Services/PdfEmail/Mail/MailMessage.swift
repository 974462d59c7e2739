import Foundation

/// One outgoing email, ready to render: addresses already validated, bodies already filled in.
public struct MailMessage: Sendable, Equatable {
    /// A file sent with the mail.
    public struct Attachment: Sendable, Equatable {
        public var name: String
        /// A media type such as `application/pdf`.
        public var mediaType: String
        public var bytes: [UInt8]

        public init(name: String, mediaType: String, bytes: [UInt8]) {
            self.name = name
            self.mediaType = mediaType
            self.bytes = bytes
        }
    }

    /// `MAIL_FROM`: `Melon <no-reply@melon.example>` or a bare address.
    public var from: String
    public var to: [String]
    /// Where replies go (`Reply-To`), when not to `from`.
    public var replyTo: String?
    public var subject: String
    public var text: String
    public var html: String?
    public var attachments: [Attachment]
    /// Identifies the message (`Message-ID`); stored with the queued mail, so a retry sends the same one.
    public var id: String
    public var date: Date

    public init(from: String, to: [String], replyTo: String? = nil, subject: String, text: String, html: String? = nil,
                attachments: [Attachment] = [], id: String, date: Date) {
        self.from = from
        self.to = to
        self.replyTo = replyTo
        self.subject = subject
        self.text = text
        self.html = html
        self.attachments = attachments
        self.id = id
        self.date = date
    }

    /// The bare address inside `from` (`no-reply@melon.example`), for the SMTP envelope.
    public var senderAddress: String { Self.address(in: from) }

    /// The address of `Name <address>`, or the text itself.
    static func address(in mailbox: String) -> String {
        guard let open = mailbox.lastIndex(of: "<"), let close = mailbox.lastIndex(of: ">"), open < close else {
            return mailbox.trimmingCharacters(in: .whitespaces)
        }
        return String(mailbox[mailbox.index(after: open)..<close])
    }
}
