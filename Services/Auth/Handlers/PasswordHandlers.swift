import Bus
import AuthContract
import Contracts
import Envelope
import Foundation
import PostgresSupport

/// `auth.password.forgot.v1`, `auth.password.reset.v1` and `auth.password.change.v1`.
struct PasswordHandlers: Sendable {
    let database: Database
    let accounts: AccountPostgresRepository
    let sessions: SessionPostgresRepository
    let events: SecurityEventPostgresRepository
    let hasher: PasswordHasher
    let registration: RegistrationHandlers
    let configuration: AuthConfiguration
    var limits: AttemptLimits { registration.limits }
    var confirmation: PasswordConfirmation {
        PasswordConfirmation(database: database, accounts: accounts, sessions: sessions, hasher: hasher, limits: limits)
    }
    var policy: PasswordPolicy { registration.policy }

    @Sendable
    func forgot(_ request: Auth.Password.Forgot.Request, _ context: RequestContext) async throws -> Auth.Password.Forgot.Response {
        let email = EmailAddress.normalized(request.email)
        if let problem = EmailAddress.problem(email) { throw OperationError.invalid(field: "data.email", problem) }
        try await registration.countMail(to: email, context)
        // The same answer whether or not the address has an account, and within the minute.
        try await database.transaction { connection in
            guard let account = try await accounts.account(email: email, on: connection, lock: true),
                  account.mayGetCode(every: configuration.codeResendInterval)
            else { return }
            try await RegistrationHandlers.mailCode(
                purpose: "reset-password", template: "password-reset", to: email, name: account.displayName, owner: .account(account.id),
                database: database, accounts: accounts, lifetime: configuration.codeLifetime, on: connection)
        }
        return .init(status: "reset_code_sent")
    }

    @Sendable
    func reset(_ request: Auth.Password.Reset.Request, _ context: RequestContext) async throws -> Auth.Password.Reset.Response {
        var validation = Validation()
        validation.check(request.code.wholeMatch(of: /[0-9]{6}/) != nil, "data.code", "must be the 6 digits from the mail")
        if let problem = policy.problem(request.newPassword) { validation.fail("data.newPassword", problem) }
        try validation.finish()
        let guess = try await registration.codes.admit(email: request.email, context)
        let newHash = try await hasher.hash(request.newPassword)
        let ended = try await registration.codes.redeem(request.code, guess, purpose: "reset-password", find: { email, connection in
            try await accounts.account(email: email, on: connection, lock: true).map { ($0, .account($0.id)) }
        }) { account, connection in
            try await accounts.updatePasswordHash(account.id, to: newHash, on: connection)
            try await events.record(.passwordReset, account: account.id, ip: context.attributes.clientIP, on: connection)
            return try await sessions.revoke(account: account.id, reason: "password reset", on: connection)
        }
        return .init(sessionsEnded: ended)
    }

    @Sendable
    func change(_ request: Auth.Password.Change.Request, _ context: RequestContext) async throws -> Auth.Password.Change.Response {
        _ = try AccountRules.caller(context)
        if let problem = policy.problem(request.newPassword) { throw OperationError.invalid(field: "data.newPassword", problem) }
        let (caller, attempt) = try await confirmation.confirm(request.currentPassword, field: "data.currentPassword", context)
        let newHash = try await hasher.hash(request.newPassword)
        let ended = try await database.transaction { connection in
            try await accounts.updatePasswordHash(caller.account, to: newHash, on: connection)
            try await events.record(.passwordChanged, account: caller.account, ip: context.attributes.clientIP, session: caller.session, on: connection)
            return try await sessions.revoke(account: caller.account, except: caller.session, reason: "password changed", on: connection)
        }
        try await limits.succeeded(attempt, admitted: true)
        return .init(sessionsEnded: ended)
    }

    /// `auth.password.confirm.v1`: another service's check of the caller's password (tax-form's export).
    @Sendable
    func confirm(_ request: Auth.Password.Confirm.Request, _ context: RequestContext) async throws -> Auth.Password.Confirm.Response {
        guard let account = UUID(uuidString: request.account), let session = UUID(uuidString: request.session) else {
            throw OperationError.invalid(field: "data.account", "must be an account id with its session id")
        }
        let attempt = try await confirmation.confirm(request.password, field: "data.password", of: (account, session), context)
        try await limits.succeeded(attempt, admitted: true)
        return .init(confirmed: true)
    }
}
