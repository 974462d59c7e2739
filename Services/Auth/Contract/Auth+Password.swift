import Contracts
import Envelope
import Foundation

extension Auth {
    public enum Password {
        /// How long a new password may be, in Unicode scalars (NIST SP 800-63B §3.1.1.2).
        public static let length = 8...256

        /// `auth.password.forgot.v1`: mails a 6-digit reset code (10 minutes, 5 attempts, one a
        /// minute) to a verified account; the answer does not tell whether the address has one.
        public enum Forgot: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.password.forgot.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/auth/password/forgot", name: "authForgotPassword", status: .accepted, errors: [.rateLimited],
                summary: "Mails a 6-digit reset code to a verified account, at most one a minute; the same answer for any email",
                example: #"{"email":"ana.byrne@tcd.ie"}"#)]
            public static let idempotency: Idempotency? = .repeatable(because: "at most one code a minute is mailed however often it is asked")

            public typealias Request = CodeMailRequest

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                /// `reset_code_sent`.
                public var status: String

                public init(status: String) { self.status = status }

                public static let fieldRules: [String: FieldRule] = ["status": .oneOf(["reset_code_sent"])]
            }
        }

        /// `auth.password.reset.v1`: sets a new password with the mailed code and ends every session.
        public enum Reset: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.password.reset.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/auth/password/reset", name: "authResetPassword", errors: [.rateLimited],
                summary: "Sets a new password with the mailed code and ends every session of the account",
                example: #"{"email":"ana.byrne@tcd.ie","code":"120456","newPassword":"a brand new pass phrase"}"#)]
            public static let idempotency: Idempotency? = .repeatable(because: "the code works once: a repeat is refused as a wrong code and changes nothing")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var email: String
                public var code: String
                public var newPassword: String

                public init(email: String, code: String, newPassword: String) {
                    self.email = email
                    self.code = code
                    self.newPassword = newPassword
                }

                public static let fieldRules: [String: FieldRule] = ["email": .email, "code": .mailedCode, "newPassword": .newPassword]
            }

            public struct Response: Codable, Sendable, Equatable {
                /// Sessions ended by the reset.
                public var sessionsEnded: Int

                public init(sessionsEnded: Int) { self.sessionsEnded = sessionsEnded }
            }
        }

        /// `auth.password.change.v1`: the signed-in caller sets a new password, confirming the
        /// current one; every other session ends.
        public enum Change: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.password.change.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/me/password", name: "mePasswordChange", access: .signedIn, errors: [.rateLimited],
                summary: "Sets a new password, confirmed with the current one; every other session ends")]
            public static let idempotency: Idempotency? = .repeatable(
                because: "a repeat is refused: the current password it names has changed (or its session ended)")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var currentPassword: String
                public var newPassword: String

                public init(currentPassword: String, newPassword: String) {
                    self.currentPassword = currentPassword
                    self.newPassword = newPassword
                }

                public static let fieldRules: [String: FieldRule] = ["currentPassword": FieldRule.text(0...Auth.Password.length.upperBound).secret, "newPassword": .newPassword]
            }

            public typealias Response = Reset.Response
        }

        /// `auth.password.confirm.v1` (bus only): another service asks whether `password` is the
        /// account's, for an act that needs it confirmed as account deletion does (tax-form's export
        /// of everything it holds). The session must be live; each try counts against the account's
        /// login attempts (`rate_limited` beyond them); a wrong password is `invalid` naming it.
        public enum Confirm: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.password.confirm.v1"
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat checks the password again, counted as another try")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var account: String
                /// The session the caller signed in with (the token's `sid`).
                public var session: String
                public var password: String

                public init(account: String, session: String, password: String) {
                    self.account = account
                    self.session = session
                    self.password = password
                }

                public static let fieldRules: [String: FieldRule] = [
                    "account": .uuid, "session": .uuid, "password": FieldRule.text(0...Auth.Password.length.upperBound).secret,
                ]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var confirmed: Bool

                public init(confirmed: Bool) { self.confirmed = confirmed }
            }
        }
    }
}
