import Contracts
import Envelope
import Foundation

extension TaxForm {
    public enum Returns {
        /// One form in a return's PDF.
        public struct PacketForm: Codable, Sendable, Equatable {
            public var form: String
            /// True: the official IRS blank, filled; false: laid out for copying onto the official form.
            public var official: Bool

            public init(form: String, official: Bool) {
                self.form = form
                self.official = official
            }
        }

        /// `tax-form.return.pdf.v1`: the caller's complete return as one PDF, every form it needs.
        public enum Pdf: OperationDeclaration {
            public static let service = TaxForm.name
            public static let type = "tax-form.return.pdf.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/tax/returns/{taxYear}/pdf", name: "taxReturnPDF", access: .owner, errors: [.conflict, .rateLimited],
                summary: "Your complete return as one PDF (application/pdf): the official 2024 Form 1040 and Schedule 1 filled, other forms laid out for copying; the same version again without a fill (ETag)",
                file: .init(content: "pdf", mediaType: "application/pdf", fileName: "fileName", etag: "etag", ifNoneMatch: "ifNoneMatch"))]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public static let fieldRules: [String: FieldRule] = ["taxYear": .range(TaxForm.taxYears), "ifNoneMatch": .undocumented]
                public var taxYear: Int
                /// The request's `If-None-Match` (the gateway copies the header): when it names the
                /// PDF's `etag`, the reply leaves the PDF out (`pdf` empty) and the client keeps its own.
                public var ifNoneMatch: String?

                public init(taxYear: Int, ifNoneMatch: String? = nil) {
                    self.taxYear = taxYear
                    self.ifNoneMatch = ifNoneMatch
                }
            }

            public struct Response: Codable, Sendable, Equatable {
                /// Empty when the request's `ifNoneMatch` names `etag`.
                public var pdf: Data
                public var fileName: String
                public var pages: Int
                public var sha256: String
                public var forms: [PacketForm]
                /// The PDF's entity tag: the same interview version under the same rules gives the
                /// same PDF (`If-None-Match` with it answers 304).
                public var etag: String

                public init(pdf: Data, fileName: String, pages: Int, sha256: String, forms: [PacketForm], etag: String) {
                    self.pdf = pdf
                    self.fileName = fileName
                    self.pages = pages
                    self.sha256 = sha256
                    self.forms = forms
                    self.etag = etag
                }
            }
        }

        /// `tax-form.return.email.v1`: mails the complete return to the email address of the
        /// interview, encrypted with the caller's password unless they ask for it unencrypted.
        public enum Email: OperationDeclaration {
            public static let service = TaxForm.name
            public static let type = "tax-form.return.email.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/tax/returns/{taxYear}/email", name: "taxReturnEmail", access: .owner, status: .accepted, errors: [.conflict, .rateLimited],
                summary: "Email your complete return as a PDF to your interview's email address, encrypted (AES-256) with a password you choose; at most 5 times a day per account")]
            public static let idempotency: Idempotency? = .stored(.caller)

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public static let fieldRules: [String: FieldRule] = [
                    "taxYear": .range(TaxForm.taxYears),
                    "password": FieldRule.text(8...128).secret.described("opens the attached PDF (AES-256); Melon keeps no copy"),
                    "unencrypted": .described("true to attach the PDF without encryption, SSN and all; only without a password"),
                ]
                public var taxYear: Int
                public var password: String?
                public var unencrypted: Bool?

                public init(taxYear: Int, password: String? = nil, unencrypted: Bool? = nil) {
                    self.taxYear = taxYear
                    self.password = password
                    self.unencrypted = unencrypted
                }
            }

            public struct Response: Codable, Sendable, Equatable {
                /// The address, masked (`m***@tcd.ie`).
                public var to: String
                public var encrypted: Bool
                /// SHA-256 of the attached PDF.
                public var sha256: String
                public var status: String
                /// How many more times your returns can be mailed in the next 24 hours.
                public var remaining: Int

                public init(to: String, encrypted: Bool, sha256: String, status: String, remaining: Int) {
                    self.to = to
                    self.encrypted = encrypted
                    self.sha256 = sha256
                    self.status = status
                    self.remaining = remaining
                }
            }
        }
    }
}
