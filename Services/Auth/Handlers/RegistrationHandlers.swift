import Bus
import AuthContract
import Contracts
import PdfEmailContract
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

/// `auth.account.register.v1`, `auth.email.verify.v2` and `auth.email.resend.v2`.
struct RegistrationHandlers: Sendable {
    let database: Database
    let accounts: AccountPostgresRepository
    let registrations: RegistrationPostgresRepository
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
        let firstName: String?
        let lastName: String?
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
        let firstName = AccountRules.optionalName(request.firstName, "data.firstName", &validation)
        let lastName = AccountRules.optionalName(request.lastName, "data.lastName", &validation)
        try validation.finish()
        try await countMail(to: email, context)
        return Registration(
            email: email, username: username, displayName: displayName, firstName: firstName, lastName: lastName,
            passwordHash: try await hasher.hash(request.password))
    }

    /// `auth.account.register.v1`, in the transaction that records the reply: a new attempt with
    /// its code mailed, or a notice to the owner of an address that has an account. A username an
    /// account or another address's attempt holds is refused first, so the answer never depends
    /// on the address.
    @Sendable
    func register(_ registration: Registration, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> Auth.Account.Register.Response
    {
        let email = registration.email
        try await registrations.lockUsername(registration.username, on: connection)
        if try await registrations.isUsernameHeld(registration.username, exceptEmail: email, on: connection) {
            throw AccountRules.usernameTaken
        }
        let domain = String(email[email.index(after: email.lastIndex(of: "@")!)...])
        let university = try await accounts.university(forDomain: domain, on: connection)
        let attempt = UUID()
        let response = Auth.Account.Register.Response(
            status: "verification_sent", email: email, university: university, registration: attempt.uuidString.lowercased())
        if try await accounts.account(email: email, on: connection) != nil {
            // The address has an account already: the same answer (an attempt id nothing knows),
            // and its owner hears about it.
            try await database.enqueue(PdfEmail.Mail.Send.self, .init(to: [email], template: .init(name: "generic-notice", variables: [
                "title": "Someone tried to create a Melon account with your address",
                "message": "Your address already has a Melon account. If this was you, log in or reset your password; if not, you need not do anything.",
            ])), on: connection, idempotencyKey: "register-notice-\(context.attributes.id)")
            return response
        }
        try await registrations.insert(
            .init(id: attempt, email: email, username: registration.username, displayName: registration.displayName,
                  firstName: registration.firstName, lastName: registration.lastName, passwordHash: registration.passwordHash,
                  universityID: university?.id, lastCodeAge: nil),
            lifetime: configuration.registrationLifetime, on: connection)
        try await mailCode(to: email, name: registration.displayName, attempt: attempt, on: connection)
        return response
    }

    /// `auth.email.verify.v2`: the code mailed for the attempt makes the account from the attempt's
    /// credentials; the address's other attempts go. An unknown attempt, or one for an address that
    /// has an account, is answered like a wrong code (and the guess counts).
    @Sendable
    func verify(_ request: Auth.Email.Verify.Request, _ context: RequestContext) async throws -> Auth.Email.Verify.Response {
        guard request.code.wholeMatch(of: /[0-9]{6}/) != nil else { throw OperationError.invalid(field: "data.code", "must be the 6 digits from the mail") }
        let attempt = try Self.attempt(request.registration)
        let guess = try await codes.admit(email: request.email, context)
        return try await codes.redeem(request.code, guess, purpose: "verify-email", find: { email, connection in
            try await registrations.live(attempt, email: email, on: connection).map { ($0, .registration($0.id)) }
        }) { attempt, connection in
            _ = try await accounts.create(from: attempt, on: connection)
            try await registrations.deleteAll(email: attempt.email, on: connection)
            return .init(verified: true)
        }
    }

    /// `auth.email.resend.v2`: a new code for the attempt, at most one a `codeResendInterval`.
    @Sendable
    func resend(_ request: Auth.Email.Resend.Request, _ context: RequestContext) async throws -> Auth.Email.Resend.Response {
        let email = EmailAddress.normalized(request.email)
        if let problem = EmailAddress.problem(email) { throw OperationError.invalid(field: "data.email", problem) }
        let attempt = try Self.attempt(request.registration)
        try await countMail(to: email, context)
        // The same answer whether or not the attempt exists, and within the interval.
        try await database.transaction { connection in
            guard let found = try await registrations.live(attempt, email: email, on: connection),
                  found.mayGetCode(every: configuration.codeResendInterval)
            else { return }
            try await mailCode(to: email, name: found.displayName, attempt: found.id, on: connection)
        }
        return .init(status: "verification_sent")
    }

    static func attempt(_ text: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else { throw OperationError.invalid(field: "data.registration", "must be the registration the register reply named") }
        return id
    }

    /// Each request that may mail `email` counts (register, resend, forgot): refused while blocked.
    func countMail(to email: String, _ context: RequestContext) async throws {
        let attempt = limits.keys(.mail, account: email, context)
        try await limits.check(attempt)
        try await limits.count(attempt)
    }

    private func mailCode(to email: String, name: String, attempt: UUID, on connection: PostgresConnection) async throws {
        try await Self.mailCode(
            purpose: "verify-email", template: "verification-code", to: email, name: name, owner: .registration(attempt),
            database: database, accounts: accounts, lifetime: configuration.codeLifetime, on: connection)
    }

    /// A new code for `purpose`, mailed with `template` through pdf-email via the outbox (sent once
    /// the caller's transaction commits).
    static func mailCode(purpose: String, template: String, to email: String, name: String, owner: AccountPostgresRepository.CodeOwner,
                         database: Database, accounts: AccountPostgresRepository, lifetime: Duration, on connection: PostgresConnection) async throws {
        let code = try await accounts.newCode(for: owner, purpose: purpose, lifetime: lifetime, on: connection)
        let minutes = String(lifetime.milliseconds / 60_000)
        try await database.enqueue(
            PdfEmail.Mail.Send.self,
            .init(to: [email], template: .init(name: template, variables: ["name": name, "code": code.code, "minutes": minutes])),
            on: connection, idempotencyKey: "code-\(code.id.uuidString.lowercased())")
    }
}
