import Contracts
import Envelope
import Foundation

extension Auth {
    public enum Account {
        /// What a username may be as typed (it is stored in lowercase): 3 to 30 letters, digits, `_`
        /// and `.`, starting with a letter.
        public static let usernamePattern = "^[A-Za-z][A-Za-z0-9_.]{2,29}$"

        /// `auth.account.register.v1`: starts a registration attempt and mails its 6-digit code; the
        /// account exists once the code is entered with the attempt's `registration` id. Another
        /// attempt for the same address (anyone's) never changes this one. The answer is the same
        /// whether or not the email already has an account.
        public enum Register: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.account.register.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/auth/register", name: "authRegister", status: .accepted, errors: [.conflict, .rateLimited],
                summary: "Starts a registration and mails a 6-digit code to confirm the email; the same answer whether or not the email has an account",
                example: #"{"email":"ana.byrne@tcd.ie","password":"a long walk by the Liffey","displayName":"Ana Byrne","username":"ana_b","firstName":"Ana","lastName":"Byrne"}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var email: String
                /// 8 to 256 characters, not one of the commonly breached passwords.
                public var password: String
                /// 1 to 80 characters.
                public var displayName: String
                /// 3 to 30 of a-z, 0-9, `_` and `.`, starting with a letter; unique; shown in the marketplace.
                public var username: String
                /// 1 to 80 characters, optional; shown to the account holder alone.
                public var firstName: String?
                /// 1 to 80 characters, optional; shown to the account holder alone.
                public var lastName: String?

                public init(email: String, password: String, displayName: String, username: String, firstName: String? = nil, lastName: String? = nil) {
                    self.email = email
                    self.password = password
                    self.displayName = displayName
                    self.username = username
                    self.firstName = firstName
                    self.lastName = lastName
                }

                public static let fieldRules: [String: FieldRule] = [
                    "email": .email, "password": .newPassword, "displayName": .personName,
                    "username": FieldRule.username.described("unique; stored in lowercase"),
                    "firstName": FieldRule.personName.described("shown to the account holder alone"),
                    "lastName": FieldRule.personName.described("shown to the account holder alone"),
                ]
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                /// `verification_sent`.
                public var status: String
                /// The address the code went to, as stored (lowercase).
                public var email: String
                /// The university network the email domain belongs to, if any.
                public var university: University?
                /// This attempt: sent back with the code (`auth.email.verify.v2`) and to ask for a new
                /// one (`auth.email.resend.v2`). Only the code mailed for it verifies it.
                public var registration: String

                public init(status: String, email: String, university: University?, registration: String) {
                    self.status = status
                    self.email = email
                    self.university = university
                    self.registration = registration
                }

                public static let fieldRules: [String: FieldRule] = [
                    "status": .oneOf(["verification_sent"]), "registration": FieldRule.uuid.described("the registration attempt"),
                ]
            }
        }
    }

    public enum Email {
        /// `auth.email.verify.v2`: confirms the address with the code mailed for one registration
        /// attempt (valid 10 minutes, 5 attempts) and creates the account with that attempt's
        /// credentials. v1 took no attempt, so a code verified whatever password was registered last
        /// for the address: it is not served.
        public enum Verify: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.email.verify.v2"
            public static let http = [HTTPBinding(
                .post, "/v1/auth/verify-email", name: "authVerifyEmail", errors: [.rateLimited, .conflict],
                summary: "Confirms the email with the code mailed for the registration (valid 10 minutes, 5 attempts) and creates the account",
                example: #"{"email":"ana.byrne@tcd.ie","code":"482913","registration":"5e7a9c1b-3d2f-4a6b-8c0d-1e2f3a4b5c6e"}"#)]
            public static let idempotency: Idempotency? = .repeatable(because: "the code works once: a repeat finds it used and is answered like any wrong code")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var email: String
                public var code: String
                /// The `registration` the register reply named.
                public var registration: String

                public init(email: String, code: String, registration: String) {
                    self.email = email
                    self.code = code
                    self.registration = registration
                }

                public static let fieldRules: [String: FieldRule] = [
                    "email": .email, "code": .mailedCode, "registration": FieldRule.uuid.described("from the register reply"),
                ]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var verified: Bool

                public init(verified: Bool) { self.verified = verified }
            }
        }

        /// `auth.email.resend.v2`: mails a new code for a registration attempt (at most one a minute,
        /// while the attempt lasts); the answer does not tell whether it exists. v1 named only the
        /// address, so it could mail the code of someone else's attempt: it is not served.
        public enum Resend: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.email.resend.v2"
            public static let http = [HTTPBinding(
                .post, "/v1/auth/verify-email/resend", name: "authResendVerification", status: .accepted, errors: [.rateLimited],
                summary: "Mails a new code, at most one a minute; the same answer whether or not the email has an account waiting")]
            public static let idempotency: Idempotency? = .repeatable(because: "at most one code a minute is mailed however often it is asked")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var email: String
                /// The `registration` the register reply named.
                public var registration: String

                public init(email: String, registration: String) {
                    self.email = email
                    self.registration = registration
                }

                public static let fieldRules: [String: FieldRule] = [
                    "email": .email, "registration": FieldRule.uuid.described("from the register reply"),
                ]
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                /// `verification_sent`.
                public var status: String

                public init(status: String) { self.status = status }

                public static let fieldRules: [String: FieldRule] = ["status": .oneOf(["verification_sent"])]
            }
        }
    }
}
