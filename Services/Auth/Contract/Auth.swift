import Contracts
import Envelope
import Foundation
import NotificationsContract
import PdfEmailContract

/// The `auth` service: accounts, email verification, sessions and the access-token keys.
public enum Auth: ServiceContract {
    public static let name = "auth"
    public static let summary = "accounts, email verification, sessions and access-token keys."
    /// Its signed-in routes are for accounts and sessions are shared by every app.
    public static let apps = AppScope.everyApp
    public static let operations: [any OperationDeclaration.Type] = [
        Account.Register.self, Email.Verify.self, Email.Resend.self, Session.Login.self, Session.Refresh.self, Session.Logout.self,
        Password.Forgot.self, Password.Reset.self, Password.Change.self, Password.Confirm.self, Events.List.self, Agreements.List.self, Agreements.Sign.self,
        Agreements.Withdraw.self, Picture.Set.self, Picture.Get.self, Picture.Delete.self, Me.Get.self, Me.Update.self, Me.Delete.self,
        Users.Search.self, Users.Get.self, Universities.List.self, Keys.Jwks.self, Sessions.Revoked.self,
    ]
    /// Mail (codes, notices) and the end of a session's devices; the account erasures it fans out come
    /// from the catalog (`ServiceDefinition.auth`, `BusPolicy`).
    public static let calls: [any OperationDeclaration.Type] = [PdfEmail.Mail.Send.self, Notifications.Sessions.End.self]
    /// Its session revocations (`auth.sessions.revoked.v1`), which every gateway hears.
    public static let publishesEvents = true

    /// A university whose closed network an account joins through its email domain.
    public struct University: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var campus: String

        public init(id: String, name: String, campus: String) {
            self.id = id
            self.name = name
            self.campus = campus
        }
    }

    /// An address to mail a password-reset code to.
    public struct CodeMailRequest: Codable, Sendable, Equatable, FieldRules {
        public var email: String

        public init(email: String) { self.email = email }

        public static let fieldRules: [String: FieldRule] = ["email": .email]
    }

    /// A new pair of tokens.
    public struct Tokens: Codable, Sendable, Equatable, FieldRules {
        public static let fieldRules: [String: FieldRule] = [
            "accessToken": .described("ES256 JWT for the Authorization header (Bearer)"),
            "refreshToken": .described("opaque; exchanged once at /v1/auth/refresh"),
            "expiresIn": .described("seconds the access token is valid"), "tokenType": .oneOf(["Bearer"]),
        ]

        /// An ES256 JWT, sent as `Authorization: Bearer <accessToken>`.
        public var accessToken: String
        /// Opaque; exchanged once at `auth.session.refresh.v1` for a new pair.
        public var refreshToken: String
        /// Seconds the access token is valid.
        public var expiresIn: Int
        public var tokenType: String

        public init(accessToken: String, refreshToken: String, expiresIn: Int) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
            self.expiresIn = expiresIn
            tokenType = "Bearer"
        }
    }
}

extension FieldRule {
    static let newPassword = FieldRule.text(Auth.Password.length).secret.described("not one of the most common passwords")
    static let mailedCode = FieldRule.pattern("^[0-9]{6}$", meaning: "the 6 digits from the mail").secret
    static let username = FieldRule.pattern(Auth.Account.usernamePattern, meaning: "3 to 30 letters, digits, _ or ., starting with a letter")
    static let policy = FieldRule.text(1...64).described("the policy id (terms, privacy, ...)")
}
