import Contracts
import Envelope
import Foundation

extension TaxForm {
    /// Everything tax-form holds about the caller, and who read it unmasked.
    public enum MyData {
        /// `tax-form.data.export.v1`: every interview (answers unmasked, W-2s among them, skipped
        /// questions), its whole history unmasked, the returns mailed and filled, and the record of
        /// unmasked reads, as JSON, once the caller's password confirms it (as account deletion
        /// does; tries count against the account's sign-in attempts). The export is itself recorded.
        public enum Export: OperationDeclaration {
            public static let service = TaxForm.name
            public static let type = "tax-form.data.export.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/tax/export", name: "taxDataExport", access: .owner, errors: [.rateLimited],
                summary: "Everything tax-form holds about you, unmasked, as JSON; your password confirms it")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat exports again, as it is then, and is recorded again")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var password: String

                public init(password: String) { self.password = password }

                public static let fieldRules: [String: FieldRule] = ["password": FieldRule.text(0...1_024).secret]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var exportedAt: Date
                public var interviews: [ExportedInterview]
                public var mails: [ExportedMail]
                public var reads: [Read]

                public init(exportedAt: Date, interviews: [ExportedInterview], mails: [ExportedMail], reads: [Read]) {
                    self.exportedAt = exportedAt
                    self.interviews = interviews
                    self.mails = mails
                    self.reads = reads
                }
            }
        }

        /// `tax-form.data.reads.v1`: each time the caller's unmasked data was read (the return's
        /// PDF downloaded or mailed, an export), newest first.
        public enum Reads: OperationDeclaration {
            public static let service = TaxForm.name
            public static let type = "tax-form.data.reads.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/tax/reads", name: "taxDataReads", access: .owner,
                summary: "Each time your unmasked tax data was read (a PDF downloaded or mailed, an export): when, what, from which app")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var after: Int64?
                public var limit: Int?

                public init(after: Int64? = nil, limit: Int? = nil) {
                    self.after = after
                    self.limit = limit
                }

                public static let fieldRules: [String: FieldRule] = [
                    "after": FieldRule.minimum(1).described("the previous page's nextAfter"),
                    "limit": FieldRule.range(PageRequest.limits).described("reads per page, \(PageRequest.defaultLimit) when left out"),
                ]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var reads: [Read]
                public var nextAfter: Int64?

                public init(reads: [Read], nextAfter: Int64?) {
                    self.reads = reads
                    self.nextAfter = nextAfter
                }
            }
        }

        /// One read of unmasked data.
        public struct Read: Codable, Sendable, Equatable {
            public var id: Int64
            public var at: Date
            /// `pdf` (downloaded), `mail` (the return mailed), `export`.
            public var what: String
            public var taxYear: Int?
            /// The app the session belonged to, and the session.
            public var app: String?
            public var session: String?

            public init(id: Int64, at: Date, what: String, taxYear: Int?, app: String?, session: String?) {
                self.id = id
                self.at = at
                self.what = what
                self.taxYear = taxYear
                self.app = app
                self.session = session
            }
        }

        public struct ExportedInterview: Codable, Sendable, Equatable {
            public var taxYear: Int
            public var version: Int
            public var answers: Answers
            public var skipped: [String]
            public var filedAt: Date?
            public var updatedAt: Date?
            /// Every saved change, newest first, unmasked.
            public var history: [Change]

            public init(taxYear: Int, version: Int, answers: Answers, skipped: [String], filedAt: Date?, updatedAt: Date?, history: [Change]) {
                self.taxYear = taxYear
                self.version = version
                self.answers = answers
                self.skipped = skipped
                self.filedAt = filedAt
                self.updatedAt = updatedAt
                self.history = history
            }
        }

        /// A return mailed: when, which version, whether encrypted, the attachment's SHA-256 (no address is kept).
        public struct ExportedMail: Codable, Sendable, Equatable {
            public var taxYear: Int
            public var version: Int
            public var mailedAt: Date
            public var encrypted: Bool
            public var sha256: String

            public init(taxYear: Int, version: Int, mailedAt: Date, encrypted: Bool, sha256: String) {
                self.taxYear = taxYear
                self.version = version
                self.mailedAt = mailedAt
                self.encrypted = encrypted
                self.sha256 = sha256
            }
        }
    }
}
