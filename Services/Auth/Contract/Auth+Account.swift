import Contracts
import Envelope
import Foundation

extension Auth {
    public enum Account {
        /// What a username may be as typed (it is stored in lowercase): 3 to 30 letters, digits, `_`
        /// and `.`, starting with a letter.
        public static let usernamePattern = "^[A-Za-z][A-Za-z0-9_.]{2,29}$"

        /// `auth.account.register.v1`: creates an account waiting for email verification and mails a
        /// 6-digit code. The answer is the same whether or not the email already has an account.
        public enum Register: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.account.register.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/auth/register", status: .accepted, errors: [.conflict, .rateLimited],
                summary: "Creates an account and mails a 6-digit code to confirm the email; the same answer whether or not the email has an account")]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var email: String
                /// 8 to 256 characters, not one of the commonly breached passwords.
                public var password: String
                /// 1 to 80 characters.
                public var displayName: String
                /// 3 to 30 of a-z, 0-9, `_` and `.`, starting with a letter; unique; shown in the marketplace.
                public var username: String

                public init(email: String, password: String, displayName: String, username: String) {
                    self.email = email
                    self.password = password
                    self.displayName = displayName
                    self.username = username
                }

                public static let fieldRules: [String: FieldRule] = [
                    "email": .email, "password": .newPassword, "displayName": .personName,
                    "username": FieldRule.username.described("unique; stored in lowercase"),
                ]
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                /// `verification_sent`.
                public var status: String
                /// The address the code went to, as stored (lowercase).
                public var email: String
                /// The university network the email domain belongs to, if any.
                public var university: University?

                public init(status: String, email: String, university: University?) {
                    self.status = status
                    self.email = email
                    self.university = university
                }

                public static let fieldRules: [String: FieldRule] = ["status": .oneOf(["verification_sent"])]
            }
        }
    }

    public enum Email {
        /// `auth.email.verify.v1`: confirms the address with the mailed code (valid 10 minutes,
        /// 5 attempts).
        public enum Verify: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.email.verify.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/auth/verify-email", errors: [.rateLimited], summary: "Confirms the email with the mailed code (valid 10 minutes, 5 attempts)")]
            public static let idempotency: Idempotency? = .repeatable(because: "the code works once: a repeat finds it used and is answered like any wrong code")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var email: String
                public var code: String

                public init(email: String, code: String) {
                    self.email = email
                    self.code = code
                }

                public static let fieldRules: [String: FieldRule] = ["email": .email, "code": .mailedCode]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var verified: Bool

                public init(verified: Bool) { self.verified = verified }
            }
        }

        /// `auth.email.resend.v1`: mails a new code (at most one a minute); the answer does not tell
        /// whether the address has an account.
        public enum Resend: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.email.resend.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/auth/verify-email/resend", status: .accepted, errors: [.rateLimited],
                summary: "Mails a new code, at most one a minute; the same answer whether or not the email has an account waiting")]
            public static let idempotency: Idempotency? = .repeatable(because: "at most one code a minute is mailed however often it is asked")

            public typealias Request = CodeMailRequest

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                /// `verification_sent`.
                public var status: String

                public init(status: String) { self.status = status }

                public static let fieldRules: [String: FieldRule] = ["status": .oneOf(["verification_sent"])]
            }
        }
    }
}
