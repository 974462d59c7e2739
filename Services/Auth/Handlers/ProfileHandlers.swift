import Bus
import AuthContract
import Contracts
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

/// `auth.me.get.v1`, `auth.me.update.v1`, `auth.me.delete.v1` and `auth.events.list.v1`: the
/// signed-in caller's account.
/// Each checks that the caller's session is still live, so a token of an ended session or a deleted
/// account stops working here at once.
struct ProfileHandlers: Sendable {
    let database: Database
    let accounts: AccountPostgresRepository
    let registrations: RegistrationPostgresRepository
    let sessions: SessionPostgresRepository
    let events: SecurityEventPostgresRepository
    let hasher: PasswordHasher
    let limits: AttemptLimits
    var confirmation: PasswordConfirmation {
        PasswordConfirmation(database: database, accounts: accounts, sessions: sessions, hasher: hasher, limits: limits)
    }

    @Sendable
    func get(_ request: Empty, _ context: RequestContext) async throws -> Auth.Profile {
        let caller = try AccountRules.caller(context)
        return try await database.transaction { connection in
            try await profile(of: caller, on: connection)
        }
    }

    @Sendable
    func update(_ request: Auth.Me.Update.Request, _ context: RequestContext) async throws -> Auth.Profile {
        let caller = try AccountRules.caller(context)
        let displayName = request.displayName?.trimmingCharacters(in: .whitespaces), username = request.username?.lowercased()
        var validation = Validation()
        validation.check(
            [request.displayName, request.username, request.firstName, request.lastName].contains { $0 != nil }, "data",
            "give a displayName, a username, a firstName or a lastName")
        if let displayName { AccountRules.checkDisplayName(displayName, &validation) }
        // A username's form is the schema's (`Auth.Account.usernamePattern`), checked before the handler.
        // Given empty, a first or last name is removed: "" stays "" for the repository.
        let change = Auth.Me.Update.Request(
            displayName: displayName, username: username,
            firstName: request.firstName.map { AccountRules.optionalName($0, "data.firstName", &validation) ?? "" },
            lastName: request.lastName.map { AccountRules.optionalName($0, "data.lastName", &validation) ?? "" })
        try validation.finish()
        return try await database.transaction { connection in
            _ = try await profile(of: caller, on: connection)
            if let username {
                try await registrations.lockUsername(username, on: connection)
                if try await registrations.isUsernameHeld(username, exceptAccount: caller.account, on: connection) { throw AccountRules.usernameTaken }
            }
            try await accounts.update(caller.account, change, on: connection)
            return try await profile(of: caller, on: connection)
        }
    }

    @Sendable
    func delete(_ request: Auth.Me.Delete.Request, _ context: RequestContext) async throws -> Auth.Me.Delete.Response {
        let (caller, _) = try await confirmation.confirm(request.password, field: "data.password", context)
        try await database.transaction { connection in
            let email = try await profile(of: caller, on: connection).email
            // Ended first, so the account's access tokens stop working at every gateway.
            _ = try await sessions.revoke(account: caller.account, reason: "account deleted", on: connection)
            try await accounts.delete(caller.account, on: connection)
            try await registrations.deleteAll(email: email, on: connection)
            try await database.forgetIdempotency(caller: caller.account.uuidString.lowercased(), on: connection)
            try await ErasureFanOut.notify(account: caller.account, email: email, database: database, on: connection)
        }
        context.logger.notice("account deleted", metadata: ["account": "\(caller.account)"])
        return .init(deleted: true)
    }

    @Sendable
    func securityEvents(_ request: Auth.Events.List.Request, _ context: RequestContext) async throws -> Auth.Events.List.Response {
        let caller = try AccountRules.caller(context)
        let limit = try request.checked()
        return try await database.transaction { connection in
            _ = try await profile(of: caller, on: connection)
            // One more than asked tells whether another page follows.
            let page = try await events.list(account: caller.account, before: request.after, limit: limit + 1, on: connection)
            let shown = Array(page.prefix(limit))
            return .init(events: shown, nextAfter: page.count > limit ? shown.last?.id : nil)
        }
    }

    /// The caller's profile, or `unauthenticated` when the session ended or the account is gone.
    private func profile(of caller: (account: UUID, session: UUID), on connection: PostgresConnection) async throws -> Auth.Profile {
        try await AccountRules.requireLive(caller, sessions: sessions, on: connection)
        guard let profile = try await accounts.profile(of: caller.account, on: connection) else { throw AccountRules.notSignedIn }
        return profile
    }
}
