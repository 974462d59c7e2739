import Contracts
import Envelope
import Foundation

extension PdfEmail {
    public enum Forms {
        /// One form to put in the PDF: its id (`1040`, `1040-schedule-1`, `1040-NR`, `8843`), its
        /// title, and each line's id, label and value as the form shows it.
        public struct Content: Codable, Sendable, Equatable, FieldRules {
            public static let fieldRules: [String: FieldRule] = [
                "form": FieldRule.pattern("^[A-Za-z0-9-]{1,40}$", meaning: "a form id such as 1040 or 1040-schedule-1"),
                "title": .plainText(1...200), "lines": .count(0...400),
                "name": FieldRule.plainText(1...60).described("how the form names itself in its footer, such as Schedule OI (Form 1040-NR); Form and the id when absent"),
            ]
            public var form: String
            public var title: String
            public var lines: [Line]
            public var name: String?

            public init(form: String, title: String, lines: [Line], name: String? = nil) {
                self.form = form
                self.title = title
                self.lines = lines
                self.name = name
            }
        }

        /// A line: the form's own number (`1a`, `16`, or a schedule's item `L`) or a named item
        /// (`name.first`, `status.single`); on an official blank a checkbox takes `X`. A laid-out
        /// form prints a line's number and never a named item's id: its label says what it is.
        public struct Line: Codable, Sendable, Equatable, FieldRules {
            /// The longest value, in Unicode scalars: a sender cuts a longer one to it.
            public static let valueLength = 0...200
            public static let fieldRules: [String: FieldRule] = ["line": .plainText(1...40), "label": .plainText(0...300), "value": .plainText(valueLength)]
            public var line: String
            public var label: String
            public var value: String

            public init(line: String, label: String, value: String) {
                self.line = line
                self.label = label
                self.value = value
            }

            /// True for the form's own line number or item letter (`1a`, `35b`, `12`, `L`), false for a named item.
            public var isNumbered: Bool { line.wholeMatch(of: /[0-9]{1,3}[a-z]{0,2}|[A-Z]/) != nil }
        }

        /// `pdf-email.forms.fill.v1`: one PDF of the given forms, in order. A form with an official
        /// blank for the year is that blank filled (appearances generated, so every viewer shows the
        /// values); any other is laid out with its title, year, line numbers, labels and values, marked
        /// for copying onto the official form. With `password`, the PDF is encrypted (AES-256).
        public enum Fill: OperationDeclaration {
            public static let service = PdfEmail.name
            public static let type = "pdf-email.forms.fill.v1"

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public static let fieldRules: [String: FieldRule] = [
                    "taxYear": .range(2000...2100), "forms": .count(1...8),
                    "password": FieldRule.text(8...128).secret.described("encrypts the PDF with AES-256; it opens with this password"),
                ]
                public var taxYear: Int
                public var forms: [Content]
                public var password: String?

                public init(taxYear: Int, forms: [Content], password: String? = nil) {
                    self.taxYear = taxYear
                    self.forms = forms
                    self.password = password
                }
            }

            public struct Response: Codable, Sendable, Equatable {
                /// The PDF (base64 in JSON).
                public var pdf: Data
                public var pages: Int
                /// Lowercase hex SHA-256 of `pdf`. Without a password the same request gives the same bytes.
                public var sha256: String
                public var forms: [Filled]

                public init(pdf: Data, pages: Int, sha256: String, forms: [Filled]) {
                    self.pdf = pdf
                    self.pages = pages
                    self.sha256 = sha256
                    self.forms = forms
                }
            }

            public struct Filled: Codable, Sendable, Equatable {
                public var form: String
                /// True: the official blank, filled; false: laid out for copying onto it.
                public var official: Bool

                public init(form: String, official: Bool) {
                    self.form = form
                    self.official = official
                }
            }
        }
    }
}
