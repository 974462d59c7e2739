import Contracts
import Envelope
import Foundation

extension TaxForm {
    public enum Suggestions {
        /// The lists an app's autocomplete can search.
        public static let lists = ["countries", "states", "visa-types", "institutions"]

        /// `tax-form.suggestions.list.v1`: entries of one list whose name (or any word of it, or
        /// the code) starts with `prefix`, for an app's autocomplete.
        public enum List: OperationDeclaration {
            public static let service = TaxForm.name
            public static let type = "tax-form.suggestions.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/tax/suggestions/{list}", name: "taxSuggestions",
                summary: "Autocomplete: countries (with the student treaty benefit we apply), US states, visa types or US colleges and universities (with address and phone) by prefix")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public static let fieldRules: [String: FieldRule] = [
                    "list": .oneOf(Suggestions.lists),
                    "prefix": FieldRule.text(0...100).described("matches the start of the name, of any word in it, or of the code; case and accents ignored"),
                    "state": FieldRule.pattern("^[A-Za-z]{2}$", meaning: "a US state's two-letter code").described("institutions only: those in this state"),
                    "taxYear": FieldRule.range(TaxForm.taxYears).described("countries only: the year whose treaty benefits to show; the newest year with rules when left out"),
                    "limit": FieldRule.range(PageRequest.limits).described("entries per page, \(PageRequest.defaultLimit) when left out"),
                    "after": FieldRule.range(0...10_000).described("the previous page's nextAfter"),
                ]
                public var list: String
                public var prefix: String?
                public var state: String?
                public var taxYear: Int?
                public var limit: Int?
                public var after: Int?

                public init(list: String, prefix: String? = nil, state: String? = nil, taxYear: Int? = nil, limit: Int? = nil, after: Int? = nil) {
                    self.list = list
                    self.prefix = prefix
                    self.state = state
                    self.taxYear = taxYear
                    self.limit = limit
                    self.after = after
                }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public static let fieldRules: [String: FieldRule] = [
                    "nextAfter": .nextPage,
                ]
                public var list: String
                /// Best first: names starting with the prefix, then codes, then names with a word starting with it.
                public var items: [Suggestion]
                public var nextAfter: Int?
                /// Where the list comes from, and what it leaves out.
                public var source: String

                public init(list: String, items: [Suggestion], nextAfter: Int?, source: String) {
                    self.list = list
                    self.items = items
                    self.nextAfter = nextAfter
                    self.source = source
                }
            }
        }
    }

    /// One entry of a suggestion list. `code` is what an answer takes (a country's or state's code, a
    /// visa question's choice, an institution's IPEDS unit id).
    public struct Suggestion: Codable, Sendable, Equatable {
        public var code: String
        public var name: String
        /// Countries: the student treaty benefit this service applies, for the year asked.
        public var treaty: TreatyBenefit?
        /// Institutions: the address, in the shape of an address answer (`school.address`).
        public var address: SuggestedAddress?
        /// Institutions: the main telephone number in E.164, as a phone answer takes it (`school.phone`).
        public var phone: String?

        public init(code: String, name: String, treaty: TreatyBenefit? = nil, address: SuggestedAddress? = nil, phone: String? = nil) {
            self.code = code
            self.name = name
            self.treaty = treaty
            self.address = address
            self.phone = phone
        }
    }

    public struct TreatyBenefit: Codable, Sendable, Equatable {
        public var article: String
        public var benefit: String

        public init(article: String, benefit: String) {
            self.article = article
            self.benefit = benefit
        }
    }

    public struct SuggestedAddress: Codable, Sendable, Equatable {
        public var line1: String
        public var city: String
        public var state: String
        public var postalCode: String
        public var country: String

        public init(line1: String, city: String, state: String, postalCode: String, country: String) {
            self.line1 = line1
            self.city = city
            self.state = state
            self.postalCode = postalCode
            self.country = country
        }
    }
}
