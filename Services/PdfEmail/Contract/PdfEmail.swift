import Contracts
import Envelope
import Foundation

/// The `pdf-email` service: outgoing mail (queued durably, delivered over SMTP with retries) and the
/// tax forms as PDFs (official blanks filled, the others laid out).
/// Only other services call it; it has no HTTP route, so clients cannot send mail through it.
public enum PdfEmail: ServiceContract {
    public static let name = "pdf-email"
    public static let summary = "queues outgoing mail and delivers it over SMTP (or to a spool folder)."
    /// Its signed-in routes are for no routes of its own: services call it.
    public static let apps = AppScope.everyApp
    public static let operations: [any OperationDeclaration.Type] = [Mail.Send.self, Mail.Status.self, Forms.Fill.self, Account.Erase.self]
    public static let erase: (any AccountEraseOperation.Type)? = Account.Erase.self

    public enum Mail {
        /// A mail template and the values of its `{{placeholders}}`.
        public struct TemplateChoice: Codable, Sendable, Equatable, FieldRules {
            public static let fieldRules: [String: FieldRule] = [
                "name": .pattern("^[a-z0-9-]{1,64}$", meaning: "a template folder name"),
                "variables": FieldRule.count(0...50).keys(1...64).each(.text(0...10_000)),
            ]

            /// A template folder name: `verification-code`, `password-reset`, `tax-form-ready`,
            /// `refund-contact-request`, `refund-contact-confirmation` or `generic-notice`.
            public var name: String
            /// Every placeholder the template uses, as text; extra values are ignored.
            public var variables: [String: String]

            public init(name: String, variables: [String: String]) {
                self.name = name
                self.variables = variables
            }
        }

        /// A file sent with the mail.
        public struct Attachment: Codable, Sendable, Equatable, FieldRules {
            /// The most bytes one file may have (`MAIL_MAX_ATTACHMENT_BYTES` bounds them together).
            public static let maxBytes = 6 << 20
            public static let fieldRules: [String: FieldRule] = [
                "name": .text(1...255), "mediaType": .pattern("^[a-z0-9.+-]{1,64}/[a-z0-9.+-]{1,64}$", meaning: "type/subtype, such as application/pdf"),
                "content": .bytes(1...maxBytes),
            ]

            /// The file name the recipient sees: 1 to 255 characters, no slashes or control characters.
            public var name: String
            /// `type/subtype`, such as `application/pdf`.
            public var mediaType: String
            /// The file's bytes (base64 in JSON).
            public var content: Data

            public init(name: String, mediaType: String, content: Data) {
                self.name = name
                self.mediaType = mediaType
                self.content = content
            }
        }

        /// Where a mail is.
        public enum DeliveryStatus: String, Codable, Sendable, SchemaEnumeration {
            /// Accepted and stored; waiting for (another) delivery attempt.
            case queued
            /// The SMTP server (or the local spool) accepted it.
            case sent
            /// Refused permanently, or not delivered within the maximum age; `reply` says why.
            case failed
        }

        /// `pdf-email.mail.send.v1`: stores a mail for delivery and answers once it is stored.
        /// Either `template` or `subject` with `text` (and optionally `html`), not both.
        public enum Send: OperationDeclaration {
            public static let service = PdfEmail.name
            public static let type = "pdf-email.mail.send.v1"
            public static let idempotency: Idempotency? = .stored(.operation)

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public static let fieldRules: [String: FieldRule] = [
                    "to": FieldRule.count(1...50).each(.email), "replyTo": .email, "attachments": .count(0...10), "account": .uuid,
                    "subject": .text(1...255), "text": .text(1...(1 << 20)), "html": .text(1...(1 << 20)),
                ]
                /// 1 to 50 recipient addresses.
                public var to: [String]
                /// Where replies go, when not to the sender (`MAIL_FROM`).
                public var replyTo: String?
                public var template: TemplateChoice?
                public var subject: String?
                public var text: String?
                public var html: String?
                /// At most 10 files, together at most the service's attachment limit (5 MiB by default).
                public var attachments: [Attachment]?
                /// The account the mail is sent for, when it goes to an address the account gave
                /// (a return mailed to the interview's address): it is erased with that account.
                public var account: String?

                public init(to: [String], replyTo: String? = nil, template: TemplateChoice? = nil, subject: String? = nil,
                            text: String? = nil, html: String? = nil, attachments: [Attachment]? = nil, account: String? = nil) {
                    self.account = account
                    self.to = to
                    self.replyTo = replyTo
                    self.template = template
                    self.subject = subject
                    self.text = text
                    self.html = html
                    self.attachments = attachments
                }
            }

            public struct Response: Codable, Sendable, Equatable {
                /// The mail's id (a lowercase UUID), for `pdf-email.mail.status.v1`.
                public var id: String
                public var status: DeliveryStatus

                public init(id: String, status: DeliveryStatus) {
                    self.id = id
                    self.status = status
                }
            }
        }

        /// `pdf-email.mail.status.v1`: where a mail is; `not_found` for an unknown id.
        public enum Status: OperationDeclaration {
            public static let service = PdfEmail.name
            public static let type = "pdf-email.mail.status.v1"

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public static let fieldRules: [String: FieldRule] = ["id": .uuid]
                public var id: String

                public init(id: String) { self.id = id }
            }

            public struct Response: Codable, Sendable, Equatable {
                public var id: String
                public var status: DeliveryStatus
                /// Delivery attempts so far.
                public var attempts: Int
                public var createdAt: Date
                /// While queued: when the next attempt is due.
                public var nextAttemptAt: Date?
                public var sentAt: Date?
                public var failedAt: Date?
                /// The last SMTP reply or transport error; for `failed`, the reason.
                public var reply: String?

                public init(id: String, status: DeliveryStatus, attempts: Int, createdAt: Date, nextAttemptAt: Date? = nil,
                            sentAt: Date? = nil, failedAt: Date? = nil, reply: String? = nil) {
                    self.id = id
                    self.status = status
                    self.attempts = attempts
                    self.createdAt = createdAt
                    self.nextAttemptAt = nextAttemptAt
                    self.sentAt = sentAt
                    self.failedAt = failedAt
                    self.reply = reply
                }
            }
        }
    }

    public enum Account {
        /// `pdf-email.account.erase.v1`: a deleted account's mail is removed (mail to it alone) or
        /// anonymised (delivered mail that went to others too). Sent by auth through its outbox.
        public enum Erase: AccountEraseOperation {
            public static let service = PdfEmail.name
            public static let type = "pdf-email.account.erase.v1"
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds nothing left to erase")

            public typealias Request = AccountErasure

            public struct Response: Codable, Sendable, Equatable {
                public var mailsDeleted: Int
                public var mailsAnonymised: Int

                public init(mailsDeleted: Int, mailsAnonymised: Int) {
                    self.mailsDeleted = mailsDeleted
                    self.mailsAnonymised = mailsAnonymised
                }
            }
        }
    }
}
