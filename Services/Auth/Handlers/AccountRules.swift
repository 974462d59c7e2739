import Bus
import AuthContract
import Contracts
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

/// The rules shared by sign-up and profile changes, and who a signed-in request comes from.
enum AccountRules {
    static func checkDisplayName(_ name: String, _ validation: inout Validation) {
        validation.checkName(name, "data.displayName")
    }

    /// A first or last name trimmed and checked like a display name; nil when not given, or given
    /// empty (which removes it).
    static func optionalName(_ raw: String?, _ field: String, _ validation: inout Validation) -> String? {
        guard let name = raw?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { return nil }
        validation.checkName(name, field)
        return name
    }

    static let usernameTaken = OperationError(.conflict, "data.username: this username is taken", fields: [.init(field: "data.username", message: "is taken")])

    static let notSignedIn = OperationError(.unauthenticated, "this needs a signed-in caller whose session is live")

    /// The normalized address to look an account up by, or nil when `raw` cannot be anyone's address
    /// (the callers answer as for an unknown address, which also keeps NUL bytes away from the database).
    static func lookupEmail(_ raw: String) -> String? {
        let email = EmailAddress.normalized(raw)
        return EmailAddress.problem(email) == nil ? email : nil
    }

    /// Throws `unauthenticated` unless the caller's session is live (not ended, account not deleted).
    static func requireLive(_ caller: (account: UUID, session: UUID), sessions: SessionPostgresRepository,
                            on connection: PostgresConnection) async throws {
        guard try await sessions.isLive(session: caller.session, account: caller.account, on: connection) else { throw notSignedIn }
    }

    /// Runs `body` in one transaction for the signed-in caller, once its session is known to be live.
    static func withLiveCaller<Result: Sendable>(
        _ context: RequestContext, database: Database, sessions: SessionPostgresRepository,
        _ body: (_ caller: (account: UUID, session: UUID), _ connection: PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let caller = try self.caller(context)
        return try await database.transaction { connection in
            try await requireLive(caller, sessions: sessions, on: connection)
            return try await body(caller, connection)
        }
    }

    /// The account and session the gateway verified (`authid`, `authclaims.sid`).
    static func caller(_ context: RequestContext) throws(OperationError) -> (account: UUID, session: UUID) {
        guard let account = context.attributes.account,
              let session = context.attributes.claim("sid").flatMap(UUID.init(uuidString:))
        else { throw notSignedIn }
        return (account, session)
    }
}

extension AccountRules {
    /// The app the caller's session is for (the token's `client_id`, passed on as the `app` claim).
    static func app(_ context: RequestContext) throws(OperationError) -> ClientApp {
        guard let app = context.attributes.app.flatMap(ClientApp.init(rawValue:)) else { throw notSignedIn }
        return app
    }
}

/// How a mailed code checked out.
enum CodeCheck {
    case accepted(UUID)
    case refused(String)

    static let wrongOrExpired = "the code is wrong or has expired; ask for a new one if needed"

    /// Checks `code` against the owner's live code for `purpose`, counting a wrong guess (the
    /// caller's transaction must commit for the count to stay).
    static func check(_ code: String, owner: AccountPostgresRepository.CodeOwner, purpose: String, attempts: Int,
                      accounts: AccountPostgresRepository, on connection: PostgresConnection) async throws -> CodeCheck {
        guard let live = try await accounts.liveCode(for: owner, purpose: purpose, on: connection), !live.expired else {
            return .refused(wrongOrExpired)
        }
        guard live.attempts < attempts else { return .refused("too many wrong attempts; ask for a new code") }
        guard constantTimeEqual(AccountPostgresRepository.hash(code, id: live.id), live.hash) else {
            try await accounts.countFailedAttempt(live.id, on: connection)
            return .refused(wrongOrExpired)
        }
        try await accounts.markUsed(code: live.id, on: connection)
        return .accepted(live.id)
    }

    static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
