import Bus
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
    var policy: PasswordPolicy { registration.policy }

    @Sendable
    func forgot(_ request: Auth.Password.Forgot.Request, _ context: RequestContext) async throws -> Auth.Password.Forgot.Response {
        let email = EmailAddress.normalized(request.email)
        if let problem = EmailAddress.problem(email) { throw OperationError.invalid(field: "data.email", problem) }
        try await registration.countMail(to: email, context)
        // The same answer whether or not the address has an account, and within the minute.
        try await database.transaction { connection in
            guard let account = try await accounts.account(email: email, codePurpose: "reset-password", on: connection, lock: true),
                  account.verified, account.mayGetCode(every: configuration.codeResendInterval)
            else { return }
            try await RegistrationHandlers.mailCode(
                purpose: "reset-password", template: "password-reset", to: email, name: account.displayName, account: account.id,
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
        let email = AccountRules.lookupEmail(request.email)
        let attempt = limits.keys(.code, account: email, context)
        try await limits.check(attempt)
        let newHash = try await hasher.hash(request.newPassword)
        enum Outcome { case reset(Int), wrong(String) }
        let outcome: Outcome = try await database.transaction { connection in
            guard let email, let account = try await accounts.account(email: email, on: connection, lock: true), account.verified else {
                return .wrong(CodeCheck.wrongOrExpired)
            }
            switch try await CodeCheck.check(
                request.code, account: account.id, purpose: "reset-password", attempts: configuration.codeAttempts, accounts: accounts, on: connection)
            {
            case .refused(let message):
                return .wrong(message)
            case .accepted:
                try await accounts.updatePasswordHash(account.id, to: newHash, on: connection)
                try await events.record(.passwordReset, account: account.id, ip: context.attributes.clientIP, on: connection)
                return .reset(try await sessions.revoke(account: account.id, reason: "password reset", on: connection))
            }
        }
        switch outcome {
        case .reset(let ended):
            try await limits.clear(attempt)
            return .init(sessionsEnded: ended)
        case .wrong(let message):
            try await limits.count(attempt)
            throw OperationError.invalid(field: "data.code", message)
        }
    }

    @Sendable
    func change(_ request: Auth.Password.Change.Request, _ context: RequestContext) async throws -> Auth.Password.Change.Response {
        let caller = try AccountRules.caller(context)
        if let problem = policy.problem(request.newPassword) { throw OperationError.invalid(field: "data.newPassword", problem) }
        // Guessing the current password with a stolen token is limited like guessing it at login.
        let attempt = limits.keys(.login, account: caller.account.uuidString.lowercased(), context)
        try await limits.check(attempt)
        let hash = try await database.transaction { connection -> String in
            try await AccountRules.requireLive(caller, sessions: sessions, on: connection)
            guard let hash = try await accounts.passwordHash(of: caller.account, on: connection) else { throw AccountRules.notSignedIn }
            return hash
        }
        guard try await hasher.verify(request.currentPassword, against: hash) else {
            try await limits.count(attempt)
            throw OperationError.invalid(field: "data.currentPassword", "is not this account's password")
        }
        let newHash = try await hasher.hash(request.newPassword)
        let ended = try await database.transaction { connection in
            try await accounts.updatePasswordHash(caller.account, to: newHash, on: connection)
            try await events.record(.passwordChanged, account: caller.account, ip: context.attributes.clientIP, session: caller.session, on: connection)
            return try await sessions.revoke(account: caller.account, except: caller.session, reason: "password changed", on: connection)
        }
        try await limits.clear(attempt)
        return .init(sessionsEnded: ended)
    }
}
