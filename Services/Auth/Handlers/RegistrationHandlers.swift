import Bus
import AuthContract
import Contracts
import PdfEmailContract
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

/// `auth.account.register.v1`, `auth.email.verify.v1` and `auth.email.resend.v1`.
struct RegistrationHandlers: Sendable {
    let database: Database
    let accounts: AccountPostgresRepository
    let hasher: PasswordHasher
    let policy: PasswordPolicy
    let limits: AttemptLimits
    let configuration: AuthConfiguration
    var codes: CodeRedemption {
        CodeRedemption(database: database, accounts: accounts, limits: limits, attempts: configuration.codeAttempts)
    }

    /// A registration checked and ready to store: the password hashed, the mail counted.
    struct Registration: Sendable {
        let email: String
        let username: String
        let displayName: String
        let passwordHash: String
    }

    /// `auth.account.register.v1`, outside the transaction: every field checked, the mail counted
    /// against the limits, the password hashed.
    @Sendable
    func prepareRegistration(_ request: Auth.Account.Register.Request, _ context: RequestContext) async throws -> Registration {
        let email = EmailAddress.normalized(request.email)
        let username = request.username.lowercased()
        let displayName = request.displayName.trimmingCharacters(in: .whitespaces)
        var validation = Validation()
        if let problem = EmailAddress.problem(email) { validation.fail("data.email", problem) }
        if let problem = policy.problem(request.password) { validation.fail("data.password", problem) }
        AccountRules.checkDisplayName(displayName, &validation)
        AccountRules.checkUsername(username, &validation)
        try validation.finish()
        try await countMail(to: email, context)
        return Registration(email: email, username: username, displayName: displayName, passwordHash: try await hasher.hash(request.password))
    }

    /// `auth.account.register.v1`, in the transaction that records the reply: the account waiting
    /// for its code, or a notice to the owner of an address that has one.
    @Sendable
    func register(_ registration: Registration, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> Auth.Account.Register.Response
    {
        let email = registration.email
        let domain = String(email[email.index(after: email.lastIndex(of: "@")!)...])
        let university = try await accounts.university(forDomain: domain, on: connection)
        let response = Auth.Account.Register.Response(status: "verification_sent", email: email, university: university)
        let existing = try await accounts.account(email: email, on: connection, lock: true)
        if let existing, existing.verified {
            // The address has an account already: same answer, and its owner hears about it.
            try await database.enqueue(PdfEmail.Mail.Send.self, .init(to: [email], template: .init(name: "generic-notice", variables: [
                "title": "Someone tried to create a Melon account with your address",
                "message": "Your address already has a Melon account. If this was you, log in or reset your password; if not, you need not do anything.",
            ])), on: connection, idempotencyKey: "register-notice-\(context.attributes.id)")
            return response
        }
        if try await accounts.isUsernameTaken(registration.username, except: existing?.id, on: connection) {
            throw AccountRules.usernameTaken
        }
        let id = existing?.id ?? UUID()
        try await accounts.save(
            id: id, email: email, username: registration.username, displayName: registration.displayName,
            passwordHash: registration.passwordHash, universityID: university?.id, on: connection)
        if existing?.mayGetCode(every: configuration.codeResendInterval) ?? true {
            try await mailCode(to: email, name: registration.displayName, account: id, on: connection)
        }
        return response
    }

    @Sendable
    func verify(_ request: Auth.Email.Verify.Request, _ context: RequestContext) async throws -> Auth.Email.Verify.Response {
        guard request.code.wholeMatch(of: /[0-9]{6}/) != nil else { throw OperationError.invalid(field: "data.code", "must be the 6 digits from the mail") }
        let guess = try await codes.admit(email: request.email, context)
        // A verified address has no code to redeem: it is answered like an unknown address (and the
        // attempt counts), so the answer tells a stranger nothing about who has an account.
        return try await codes.redeem(request.code, guess, purpose: "verify-email", eligible: { !$0.verified }) { account, connection in
            try await accounts.markVerified(account.id, on: connection)
            return .init(verified: true)
        }
    }

    @Sendable
    func resend(_ request: Auth.Email.Resend.Request, _ context: RequestContext) async throws -> Auth.Email.Resend.Response {
        let email = EmailAddress.normalized(request.email)
        if let problem = EmailAddress.problem(email) { throw OperationError.invalid(field: "data.email", problem) }
        try await countMail(to: email, context)
        // The same answer whether or not the address has an account waiting, and within the minute.
        try await database.transaction { connection in
            guard let account = try await accounts.account(email: email, on: connection, lock: true), !account.verified,
                  account.mayGetCode(every: configuration.codeResendInterval)
            else { return }
            try await mailCode(to: email, name: account.displayName, account: account.id, on: connection)
        }
        return .init(status: "verification_sent")
    }

    /// Each request that may mail `email` counts (register, resend, forgot): refused while blocked.
    func countMail(to email: String, _ context: RequestContext) async throws {
        let attempt = limits.keys(.mail, account: email, context)
        try await limits.check(attempt)
        try await limits.count(attempt)
    }

    private func mailCode(to email: String, name: String, account: UUID, on connection: PostgresConnection) async throws {
        try await Self.mailCode(
            purpose: "verify-email", template: "verification-code", to: email, name: name, account: account,
            database: database, accounts: accounts, lifetime: configuration.codeLifetime, on: connection)
    }

    /// A new code for `purpose`, mailed with `template` through pdf-email via the outbox (sent once
    /// the caller's transaction commits).
    static func mailCode(purpose: String, template: String, to email: String, name: String, account: UUID, database: Database,
                         accounts: AccountPostgresRepository, lifetime: Duration, on connection: PostgresConnection) async throws {
        let code = try await accounts.newCode(for: account, purpose: purpose, lifetime: lifetime, on: connection)
        let minutes = String(lifetime.milliseconds / 60_000)
        try await database.enqueue(
            PdfEmail.Mail.Send.self,
            .init(to: [email], template: .init(name: template, variables: ["name": name, "code": code.code, "minutes": minutes])),
            on: connection, idempotencyKey: "code-\(code.id.uuidString.lowercased())")
    }
}
