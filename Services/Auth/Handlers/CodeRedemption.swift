import Bus
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

/// Redeems a mailed code (email verification, password reset) the one way both use: guesses limited
/// per account and client network, each guess counted in a transaction that commits, a wrong one answered
/// `invalid` naming `data.code`, the limit cleared once a code is accepted.
struct CodeRedemption: Sendable {
    let database: Database
    let accounts: AccountPostgresRepository
    let limits: AttemptLimits
    let attempts: Int

    /// A guess at the code of `email`, admitted while its limits are not blocked (`rate_limited`
    /// otherwise): check this before any costly work the redemption needs.
    struct Guess: Sendable {
        /// Nil when the text cannot be anyone's address: answered like an unknown one.
        let email: String?
        let attempt: AttemptLimits.Keys
    }

    func admit(email raw: String, _ context: RequestContext) async throws -> Guess {
        let email = AccountRules.lookupEmail(raw)
        let attempt = limits.keys(.code, account: email, context)
        try await limits.check(attempt)
        return Guess(email: email, attempt: attempt)
    }

    /// Runs `accept` in the transaction that accepts the code, with what `find` found for the
    /// address and whose code it checks. Nothing found is answered like a wrong code.
    func redeem<Found: Sendable, Value: Sendable>(
        _ code: String, _ guess: Guess, purpose: String,
        find: (String, PostgresConnection) async throws -> (found: Found, owner: AccountPostgresRepository.CodeOwner)?,
        accept: (Found, PostgresConnection) async throws -> Value
    ) async throws -> Value {
        let email = guess.email, attempt = guess.attempt
        let outcome: Result<Value, OperationError> = try await database.transaction { connection in
            guard let email, let (found, owner) = try await find(email, connection) else {
                return .failure(.invalid(field: "data.code", CodeCheck.wrongOrExpired))
            }
            switch try await CodeCheck.check(code, owner: owner, purpose: purpose, attempts: attempts, accounts: accounts, on: connection) {
            case .accepted: return .success(try await accept(found, connection))
            case .refused(let message): return .failure(.invalid(field: "data.code", message))
            }
        }
        switch outcome {
        case .success(let value):
            try await limits.succeeded(attempt)
            return value
        case .failure(let wrong):
            try await limits.count(attempt)
            throw wrong
        }
    }
}
