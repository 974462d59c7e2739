import AuthContract
import Bus
import Contracts
import Envelope
import Foundation
import PostgresSupport

/// `auth.users.search.v1`, `auth.users.get.v1` and `auth.universities.list.v1`: what members see of
/// one another, and the university networks for the login screen.
struct UserDirectoryHandlers: Sendable {
    let database: Database
    let sessions: SessionPostgresRepository
    let directory: UserDirectoryPostgresRepository

    @Sendable
    func search(_ request: Auth.Users.Search.Request, _ context: RequestContext) async throws -> Auth.Users.Search.Response {
        _ = try AccountRules.caller(context)
        let typed = request.q.trimmingCharacters(in: .whitespaces).lowercased()
        let query = typed.hasPrefix("@") ? String(typed.dropFirst()) : typed
        let limit = request.limit ?? 20
        var validation = Validation()
        validation.check(
            Auth.Users.Search.queryLength.contains(query.unicodeScalars.count)
                && !query.unicodeScalars.contains { $0.properties.generalCategory == .control }, "data.q",
            "must be \(Auth.Users.Search.queryLength.lowerBound) to \(Auth.Users.Search.queryLength.upperBound) characters without control characters")
        validation.check(Auth.Users.Search.limits.contains(limit), "data.limit", "must be from 1 to \(Auth.Users.Search.limits.upperBound)")
        try validation.finish()
        return try await AccountRules.withLiveCaller(context, database: database, sessions: sessions) { _, connection in
            // One more than asked tells whether another page follows.
            let found = try await directory.search(
                query, university: request.university, after: request.after?.lowercased(), limit: limit + 1,
                on: connection)
            let shown = Array(found.prefix(limit))
            return .init(users: shown, nextAfter: found.count > limit ? shown.last?.username : nil)
        }
    }

    @Sendable
    func profile(_ request: Auth.AccountRequest, _ context: RequestContext) async throws -> Auth.PublicProfile {
        _ = try AccountRules.caller(context)
        let account = try Self.account(request)
        return try await AccountRules.withLiveCaller(context, database: database, sessions: sessions) { _, connection in
            guard let profile = try await directory.profile(of: account, on: connection) else { throw Self.noSuchAccount }
            return profile
        }
    }

    @Sendable
    func universities(_ request: Empty, _ context: RequestContext) async throws -> Auth.Universities.List.Response {
        .init(universities: try await database.transaction { try await directory.universities(on: $0) })
    }

    static let noSuchAccount = OperationError(.notFound, "there is no such account")

    static func account(_ request: Auth.AccountRequest) throws(OperationError) -> UUID {
        guard let account = UUID(uuidString: request.account) else { throw OperationError.invalid(field: "data.account", "must be an account id") }
        return account
    }
}
