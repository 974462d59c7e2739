import Contracts
import Envelope
import Foundation

extension Auth {
    /// What any signed-in member may see of an account (the marketplace's sellers, the fundraising
    /// app's donors): never the email, nor the first and last name.
    public struct PublicProfile: Codable, Sendable, Equatable {
        public var id: String
        public var username: String
        public var displayName: String
        public var university: University?
        /// The picture's facts; its bytes come from `auth.picture.get.v1`.
        public var picture: PictureInfo
        /// The day the account was made (midnight UTC).
        public var joinedOn: Date

        public init(id: String, username: String, displayName: String, university: University?, picture: PictureInfo, joinedOn: Date) {
            self.id = id
            self.username = username
            self.displayName = displayName
            self.university = university
            self.picture = picture
            self.joinedOn = joinedOn
        }
    }

    public enum Users {
        /// `auth.users.search.v1`: members whose username, or a word of whose display name, begins
        /// with `q`, by username, a page at a time.
        public enum Search: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.users.search.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/users", name: "usersSearch", access: .signedIn,
                summary: "Members whose username or a word of whose display name begins with q (never the email), by username")]

            /// The shortest query: one letter would list everyone.
            public static let queryLength = 2...80
            public static let limits = 1...50

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                /// 2 to 80 characters; a leading `@` is the username's.
                public var q: String
                /// Only members of this university network (`GET /v1/universities`).
                public var university: String?
                /// Items per page, 20 when left out.
                public var limit: Int?
                /// The previous page's `nextAfter`.
                public var after: String?

                public init(q: String, university: String? = nil, limit: Int? = nil, after: String? = nil) {
                    self.q = q
                    self.university = university
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = [
                    "q": FieldRule.text(queryLength).described("the beginning of a username (a leading @ is allowed) or of a word of a display name"),
                    "university": FieldRule.text(1...64).described("a university id from GET /v1/universities"),
                    "limit": FieldRule.range(limits).described("items per page, 20 when left out"),
                    "after": FieldRule.text(1...30).described("the previous page's nextAfter"),
                ]
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var users: [PublicProfile]
                /// Pass as `after` for the next page; absent on the last page.
                public var nextAfter: String?

                public init(users: [PublicProfile], nextAfter: String?) {
                    self.users = users
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .described("pass as after for the next page; absent on the last page")]
            }
        }

        /// `auth.users.get.v1`: an account's public profile, for any signed-in member.
        public enum Get: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.users.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/users/{account}", name: "userGet", access: .signedIn, errors: [.notFound],
                summary: "An account's public profile: username, display name, university, picture, the day it joined; never the email")]

            public typealias Request = AccountRequest
            public typealias Response = PublicProfile
        }
    }

    /// Names an account by its id (`sub` of its tokens; `id` of its profile).
    public struct AccountRequest: Codable, Sendable, Equatable, FieldRules {
        public var account: String

        public init(account: String) { self.account = account }

        public static let fieldRules: [String: FieldRule] = ["account": FieldRule.uuid.described("the account id")]
    }

    /// A university network with its email domains and campuses.
    public struct UniversityNetwork: Codable, Sendable, Equatable {
        public struct Campus: Codable, Sendable, Equatable {
            public var id: String
            public var name: String
            /// The campus named beside the university in profiles.
            public var main: Bool

            public init(id: String, name: String, main: Bool) {
                self.id = id
                self.name = name
                self.main = main
            }
        }

        public var id: String
        public var name: String
        /// Addresses at these domains, or their subdomains, join the network.
        public var domains: [String]
        public var campuses: [Campus]

        public init(id: String, name: String, domains: [String], campuses: [Campus]) {
            self.id = id
            self.name = name
            self.domains = domains
            self.campuses = campuses
        }
    }

    public enum Universities {
        /// `auth.universities.list.v1`: every university network, by name, for the login screen's
        /// picker. They are a few dozen rows that migrations add, so one page holds them all.
        public enum List: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.universities.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/universities", name: "universitiesList", access: .anyone, summary: "The university networks with their email domains and campuses, by name")]
            public typealias Request = Empty

            public struct Response: Codable, Sendable, Equatable {
                public var universities: [UniversityNetwork]

                public init(universities: [UniversityNetwork]) { self.universities = universities }
            }
        }
    }
}
