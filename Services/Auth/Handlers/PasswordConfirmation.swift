import Bus
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

/// The signed-in caller confirms a sensitive change with their password (change it, delete the
/// account): guesses with a stolen token are limited like guesses at login.
struct PasswordConfirmation: Sendable {
    let database: Database
    let accounts: AccountPostgresRepository
    let sessions: SessionPostgresRepository
    let hasher: PasswordHasher
    let limits: AttemptLimits

    /// The caller, once `password` (the request's `field`) is theirs and their session is live;
    /// `invalid` naming `field` otherwise. `attempt` was counted: report it `succeeded` after the change.
    func confirm(_ password: String, field: String, _ context: RequestContext) async throws
        -> (caller: (account: UUID, session: UUID), attempt: AttemptLimits.Keys)
    {
        let caller = try AccountRules.caller(context)
        return (caller, try await confirm(password, field: field, of: caller, context))
    }

    /// The same for `caller` named by another service (`auth.password.confirm.v1`): nothing when
    /// `password` is theirs and the session is live; the attempt is counted and reported.
    func confirm(_ password: String, field: String, of caller: (account: UUID, session: UUID), _ context: RequestContext) async throws -> AttemptLimits.Keys {
        let attempt = limits.keys(.login, account: caller.account.uuidString.lowercased(), context)
        try await limits.admit(attempt)
        let hash = try await database.transaction { connection -> String in
            try await AccountRules.requireLive(caller, sessions: sessions, on: connection)
            guard let hash = try await accounts.passwordHash(of: caller.account, on: connection) else { throw AccountRules.notSignedIn }
            return hash
        }
        guard try await hasher.verify(password, against: hash) else {
            throw OperationError.invalid(field: field, "is not this account's password")
        }
        return attempt
    }
}
