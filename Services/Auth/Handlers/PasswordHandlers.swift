import Bus
import Contracts
import Envelope
import Foundation
import PostgresSupport

/// `auth.password.forgot.v1` and `auth.password.reset.v1`.
struct PasswordHandlers: Sendable {
    let database: Database
    let accounts: AccountPostgresRepository
    let sessions: SessionPostgresRepository
    let hasher: PasswordHasher
    let policy: PasswordPolicy
    let configuration: AuthConfiguration

    @Sendable
    func forgot(_ request: Auth.Password.Forgot.Request, _ context: RequestContext) async throws -> Auth.Password.Forgot.Response {
        let email = EmailAddress.normalized(request.email)
        if let problem = EmailAddress.problem(email) { throw OperationError.invalid(field: "data.email", problem) }
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
        let email = EmailAddress.normalized(request.email)
        let newHash = try await hasher.hash(request.newPassword)
        enum Outcome { case reset(Int), wrong(String) }
        let outcome: Outcome = try await database.transaction { connection in
            guard let account = try await accounts.account(email: email, on: connection, lock: true), account.verified else {
                return .wrong(CodeCheck.wrongOrExpired)
            }
            switch try await CodeCheck.check(
                request.code, account: account.id, purpose: "reset-password", attempts: configuration.codeAttempts, accounts: accounts, on: connection)
            {
            case .refused(let message):
                return .wrong(message)
            case .accepted:
                try await accounts.updatePasswordHash(account.id, to: newHash, on: connection)
                return .reset(try await sessions.revoke(account: account.id, reason: "password reset", on: connection))
            }
        }
        switch outcome {
        case .reset(let ended): return .init(sessionsEnded: ended)
        case .wrong(let message): throw OperationError.invalid(field: "data.code", message)
        }
    }
}
