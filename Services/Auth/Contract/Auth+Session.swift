import Contracts
import Envelope
import Foundation

extension Auth {
    public enum Session {
        /// `auth.session.login.v2`: a new session of a verified account for one app, which its
        /// tokens name (`client_id`). A wrong password and an unknown email get the same answer. v1
        /// named no app: it is not served.
        public enum Login: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.session.login.v2"
            public static let http = [HTTPBinding(
                .post, "/v1/auth/login", name: "authLogin", errors: [.unauthenticated, .forbidden, .rateLimited],
                summary: "Starts a session of one app: an access token (15 minutes) naming the app and a refresh token",
                example: #"{"email":"ana.byrne@tcd.ie","password":"a long walk by the Liffey","app":"refunds"}"#)]
            public static let idempotency: Idempotency? = .repeatable(because: "the reply holds tokens, which are never stored; a repeat starts a second session")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var email: String
                public var password: String
                /// The app signing in: its tokens name it and its policies apply.
                public var app: ClientApp

                public init(email: String, password: String, app: ClientApp) {
                    self.email = email
                    self.password = password
                    self.app = app
                }

                public static let fieldRules: [String: FieldRule] = [
                    "email": .text(0...254), "password": FieldRule.text(0...Auth.Password.length.upperBound).secret,
                    "app": .described("the app signing in (its OAuth client id)"),
                ]
            }

            public typealias Response = Tokens
        }

        /// `auth.session.refresh.v1`: exchanges a refresh token for a new pair. A token used twice
        /// ends its whole session, except a repeat within a few seconds (concurrent refreshes).
        public enum Refresh: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.session.refresh.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/auth/refresh", name: "authRefresh", errors: [.unauthenticated, .rateLimited],
                summary: "Exchanges a refresh token for a new pair; reusing an old one ends the session",
                example: #"{"refreshToken":"Qm9ndXMtZXhhbXBsZS1yZWZyZXNoLXRva2VuLTAwMDA"}"#)]
            public static let idempotency: Idempotency? = .repeatable(
                because: "the reply holds tokens, which are never stored; a repeat within AUTH_REFRESH_GRACE gets the same refresh token and a new access token")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var refreshToken: String

                public init(refreshToken: String) { self.refreshToken = refreshToken }

                public static let fieldRules: [String: FieldRule] = ["refreshToken": FieldRule.text(0...200).secret]
            }

            public typealias Response = Tokens
        }

        /// `auth.session.logout.v1`: ends the caller's session, or all of the caller's sessions.
        public enum Logout: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.session.logout.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/auth/logout", name: "authLogout", access: .signedIn, summary: "Ends this session, or with all=true every session of the account")]
            public static let idempotency: Idempotency? = .repeatable(because: "ending sessions that have ended changes nothing")

            public struct Request: Codable, Sendable, Equatable {
                /// End every session of the account, not only this one.
                public var all: Bool?

                public init(all: Bool? = nil) { self.all = all }
            }

            public struct Response: Codable, Sendable, Equatable {
                /// How many sessions ended.
                public var ended: Int

                public init(ended: Int) { self.ended = ended }
            }
        }
    }

    public enum Keys {
        /// `auth.keys.jwks.v1`: the public keys access tokens are signed with (RFC 7517 JWK Set).
        public enum Jwks: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.keys.jwks.v1"
            public static let http = [HTTPBinding(.get, "/.well-known/jwks.json", name: "authSigningKeys", summary: "The public keys access tokens are signed with (RFC 7517)")]

            public typealias Request = Empty

            public struct Response: Codable, Sendable, Equatable {
                public var keys: [Key]

                public init(keys: [Key]) { self.keys = keys }
            }

            /// One P-256 public key.
            public struct Key: Codable, Sendable, Equatable {
                public var kty: String
                public var crv: String
                public var alg: String
                public var use: String
                public var kid: String
                public var x: String
                public var y: String

                public init(kid: String, x: String, y: String) {
                    kty = "EC"
                    crv = "P-256"
                    alg = "ES256"
                    use = "sig"
                    self.kid = kid
                    self.x = x
                    self.y = y
                }
            }
        }
    }
}
