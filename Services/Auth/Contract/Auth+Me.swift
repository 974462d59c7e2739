import Contracts
import Envelope
import Foundation

extension Auth {
    /// One entry of the account holder's security record.
    public struct SecurityEvent: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable, SchemaEnumeration {
            case login = "login"
            case loginFailed = "login_failed"
            case passwordChanged = "password_changed"
            case passwordReset = "password_reset"
            /// A refresh token was used again after its grace: its session was ended.
            case refreshTokenReused = "refresh_token_reused"
            /// Attempts for the account (from `ip`, or from everywhere) were held up for a while:
            /// `detail` says which (`login`, `code`, `mail`).
            case blocked = "blocked"
            /// A refresh token of the account was refused: `detail` is `expired` or `session_ended`.
            case refreshTokenRefused = "refresh_token_refused"
        }

        /// Increasing; pass the last one seen as `after` for the next page.
        public var id: Int64
        public var kind: Kind
        public var at: Date
        /// The client IP the gateway saw (for `blocked`, the client network: an IPv6 /64 prefix).
        public var ip: String?
        /// More about `blocked` and `refresh_token_refused`.
        public var detail: String?

        public init(id: Int64, kind: Kind, at: Date, ip: String?, detail: String? = nil) {
            self.id = id
            self.kind = kind
            self.at = at
            self.ip = ip
            self.detail = detail
        }
    }

    public enum Events {
        /// `auth.events.list.v1`: the caller's security events, newest first, a page at a time.
        public enum List: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.events.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/me/security-events", name: "meSecurityEvents", access: .owner, summary: "The caller's logins, failed logins and password changes, newest first")]

            public typealias Request = PageRequest

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var events: [SecurityEvent]
                /// Pass as `after` for the next page; absent on the last page.
                public var nextAfter: Int64?

                public init(events: [SecurityEvent], nextAfter: Int64?) {
                    self.events = events
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }
    }

    /// The signed-in caller's own account.
    public struct Profile: Codable, Sendable, Equatable {
        public var id: String
        public var email: String
        public var username: String
        public var displayName: String
        /// Shown to the account holder alone, like the email.
        public var firstName: String?
        public var lastName: String?
        public var university: University?
        /// The picture set, or the account's default one (`isDefault`).
        public var picture: PictureInfo
        public var createdAt: Date

        public init(id: String, email: String, username: String, displayName: String, firstName: String?, lastName: String?,
                    university: University?, picture: PictureInfo, createdAt: Date) {
            self.id = id
            self.email = email
            self.username = username
            self.displayName = displayName
            self.firstName = firstName
            self.lastName = lastName
            self.university = university
            self.picture = picture
            self.createdAt = createdAt
        }
    }

    public enum Me {
        /// `auth.me.get.v1`: the caller's profile.
        public enum Get: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.me.get.v1"
            public static let http = [HTTPBinding(.get, "/v1/me", name: "meGet", access: .owner, summary: "The caller's profile")]
            public typealias Request = Empty
            public typealias Response = Profile
        }

        /// `auth.me.update.v1`: changes the display name, the username, the first or the last name.
        public enum Update: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.me.update.v1"
            public static let http = [HTTPBinding(
                .patch, "/v1/me", name: "meUpdate", access: .owner, errors: [.conflict], summary: "Changes the caller's display name, username, first or last name (an empty first or last name removes it)")]
            public static let idempotency: Idempotency? = .repeatable(because: "setting the same name again changes nothing")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var displayName: String?
                public var username: String?
                /// An empty one removes it.
                public var firstName: String?
                /// An empty one removes it.
                public var lastName: String?

                public init(displayName: String? = nil, username: String? = nil, firstName: String? = nil, lastName: String? = nil) {
                    self.displayName = displayName
                    self.username = username
                    self.firstName = firstName
                    self.lastName = lastName
                }

                public static let fieldRules: [String: FieldRule] = [
                    "displayName": .personName, "username": .username,
                    "firstName": FieldRule.text(0...Validation.nameLength.upperBound).described("empty removes it"),
                    "lastName": FieldRule.text(0...Validation.nameLength.upperBound).described("empty removes it"),
                ]
            }

            public typealias Response = Profile
        }

        /// `auth.me.delete.v1`: deletes the caller's account (the password confirms it) and ends
        /// every session.
        public enum Delete: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.me.delete.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/me", name: "meDelete", access: .owner, errors: [.rateLimited],
                summary: "Deletes the caller's account (the password confirms it) and ends every session")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds the session ended and answers 401")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var password: String

                public init(password: String) { self.password = password }

                public static let fieldRules: [String: FieldRule] = ["password": FieldRule.text(0...Auth.Password.length.upperBound).secret]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var deleted: Bool

                public init(deleted: Bool) { self.deleted = deleted }
            }
        }
    }
}
