import AccessTokens
import Bus
import AuthContract
import Contracts
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

/// `auth.session.login.v2`, `auth.session.refresh.v1`, `auth.session.logout.v1` and `auth.keys.jwks.v1`.
struct SessionHandlers: Sendable {
    let database: Database
    let accounts: AccountPostgresRepository
    let registrations: RegistrationPostgresRepository
    let sessions: SessionPostgresRepository
    let hasher: PasswordHasher
    let keys: SigningKeys
    let limits: AttemptLimits
    let events: SecurityEventPostgresRepository
    let configuration: AuthConfiguration
    /// Verified against when the email is unknown, so both cases take as long.
    let decoyHash: String

    static let wrongCredentials = OperationError(.unauthenticated, "the email or password is wrong")
    static let badRefreshToken = OperationError(.unauthenticated, "the refresh token is not valid; log in again")

    @Sendable
    func login(_ request: Auth.Session.Login.Request, _ context: RequestContext) async throws -> Auth.Tokens {
        // Not an address (a NUL byte, say): no account has it, and the answer is the same.
        let email = AccountRules.lookupEmail(request.email)
        let attempt = limits.keys(.login, account: email, context)
        // One transaction whether or not the address has an account: the attempt is counted before
        // the password is checked (and taken back once it was right), and an account's login is
        // recorded as failed until then, so nothing is written after the check on a wrong password.
        let (account, pending, recorded): (AccountPostgresRepository.Account?, String?, Int64?) = try await database.transaction { connection in
            try await limits.admit(attempt, on: connection)
            guard let email else { return (nil, nil, nil) }
            guard let account = try await accounts.account(email: email, on: connection) else {
                return (nil, try await registrations.newestPasswordHash(email: email, on: connection), nil)
            }
            return (account, nil, try await events.recordAttempt(account: account.id, ip: context.attributes.clientIP, on: connection))
        }
        guard let account, let recorded else {
            // No account: the newest registration attempt's password, or one nobody has, so that
            // every case costs one Argon2 check.
            if try await hasher.verify(request.password, against: pending ?? decoyHash), pending != nil {
                try await limits.succeeded(attempt, admitted: true)
                throw OperationError(.forbidden, "confirm your email address with the code we sent first")
            }
            throw Self.wrongCredentials
        }
        guard try await hasher.verify(request.password, against: account.passwordHash) else {
            SecurityEventPostgresRepository.count(.loginFailed)
            throw Self.wrongCredentials
        }
        try await limits.succeeded(attempt, admitted: true)
        let rehashed = hasher.needsRehash(account.passwordHash) ? try await hasher.hash(request.password) : nil
        let (session, refresh, facts) = try await database.transaction { connection in
            if let rehashed { try await accounts.updatePasswordHash(account.id, to: rehashed, on: connection) }
            let session = try await sessions.startSession(for: account.id, app: request.app, on: connection)
            try await limits.remember(account: account.id, context, on: connection)
            try await events.settle(recorded, session: session, on: connection)
            let refresh = try await sessions.issueToken(session: session, parent: nil, lifetime: configuration.refreshTokenLifetime, on: connection)
            guard let facts = try await accounts.tokenFacts(of: account.id, on: connection) else { throw OperationError(.internal, "the account is gone") }
            return (session, refresh, facts)
        }
        context.logger.info("login", metadata: ["account": "\(account.id)", "session": "\(session)"])
        return try await tokens(account: account.id, facts: facts, app: request.app, session: session, refresh: refresh)
    }

    @Sendable
    func refresh(_ request: Auth.Session.Refresh.Request, _ context: RequestContext) async throws -> Auth.Tokens {
        enum Outcome {
            case issued(account: UUID, session: UUID, app: ClientApp, refresh: String, facts: AccountPostgresRepository.TokenFacts)
            case refused(UUID?), reused(UUID)
        }
        let ip = limits.keys(.refresh, account: nil, context)
        try await limits.check(ip)
        let grace = Double(configuration.refreshGrace.milliseconds) / 1000
        let outcome: Outcome = try await database.transaction { connection in
            guard let token = try await sessions.presented(request.refreshToken, on: connection) else { return .refused(nil) }
            guard let facts = try await accounts.tokenFacts(of: token.account, on: connection) else { return .refused(token.account) }
            guard !token.sessionRevoked, !token.expired else {
                try await events.record(
                    .refreshTokenRefused, account: token.account, ip: context.attributes.clientIP, session: token.session,
                    detail: token.sessionRevoked ? "session_ended" : "expired", on: connection)
                return .refused(token.account)
            }
            guard let app = token.app else {
                // Started before sessions named their app: ended now, through the usual path.
                _ = try await sessions.revoke(session: token.session, reason: "started before sessions named their app", on: connection)
                return .refused(token.account)
            }
            if let usedAgo = token.usedAgo {
                // Used before: a concurrent refresh if it was moments ago and its rotation is still the
                // latest; otherwise someone replays a stolen token, and the whole session ends (even
                // while the account is rate-limited).
                guard usedAgo <= grace, !token.childUsed else {
                    _ = try await sessions.revoke(session: token.session, reason: "refresh token reused", on: connection)
                    try await events.record(
                        .refreshTokenReused, account: token.account, ip: context.attributes.clientIP, session: token.session, on: connection)
                    return .reused(token.account)
                }
            }
            try await limits.check(limits.keys(.refresh, account: token.account.uuidString.lowercased(), context), on: connection)
            if token.usedAgo == nil { try await sessions.markUsed(token.hash, on: connection) }
            // The token's one child: issued now, or (a repeat within the grace window) handed again.
            let refresh = try await sessions.issueToken(
                session: token.session, parent: request.refreshToken, lifetime: configuration.refreshTokenLifetime, on: connection)
            return .issued(account: token.account, session: token.session, app: app, refresh: refresh, facts: facts)
        }
        switch outcome {
        case .issued(let account, let session, let app, let refresh, let facts):
            return try await tokens(account: account, facts: facts, app: app, session: session, refresh: refresh)
        case .refused(let account):
            try await limits.count(limits.keys(.refresh, account: account.map { $0.uuidString.lowercased() }, context))
            throw Self.badRefreshToken
        case .reused(let account):
            context.logger.warning("a used refresh token came back: its session is ended", metadata: ["account": "\(account)"])
            try await limits.count(limits.keys(.refresh, account: account.uuidString.lowercased(), context))
            throw Self.badRefreshToken
        }
    }

    @Sendable
    func logout(_ request: Auth.Session.Logout.Request, _ context: RequestContext) async throws -> Auth.Session.Logout.Response {
        let caller = try AccountRules.caller(context)
        let ended = try await database.transaction { connection in
            request.all == true
                ? try await sessions.revoke(account: caller.account, reason: "logout everywhere", on: connection)
                : try await sessions.revoke(session: caller.session, reason: "logout", on: connection)
        }
        return .init(ended: ended)
    }

    @Sendable
    func revoked(_ request: Auth.Sessions.Revoked.Request, _ context: RequestContext) async throws -> Auth.Sessions.Revoked.Response {
        var validation = Validation()
        let after = request.after.flatMap(UUID.init(uuidString:))
        _ = validation.check(request.after == nil || after != nil, "data.after", "must be a session id from the previous page")
        try validation.finish()
        let limit = request.limit ?? 5_000
        let page = try await database.transaction { connection in
            try await sessions.revoked(after: after, limit: limit, on: connection)
        }
        return .init(
            sessions: page.map { .init(sid: $0.session.uuidString.lowercased(), until: $0.until) },
            next: page.count == limit ? page.last?.session.uuidString.lowercased() : nil)
    }

    @Sendable
    func jwks(_ request: Empty, _ context: RequestContext) async throws -> Auth.Keys.Jwks.Response {
        try .init(publishing: try await keys.published())
    }

    private func tokens(account: UUID, facts: AccountPostgresRepository.TokenFacts, app: ClientApp, session: UUID, refresh: String) async throws
        -> Auth.Tokens
    {
        let now = database.now()
        let claims = AccessTokenClaims(
            subject: account.uuidString.lowercased(), session: session.uuidString.lowercased(), university: facts.university, roles: facts.roles,
            app: app.rawValue, audience: configuration.audience, issuer: configuration.issuer, issuedAt: now,
            expiresAt: now.adding(configuration.accessTokenLifetime), username: facts.username,
            agreements: facts.agreements.isEmpty ? nil : facts.agreements)
        let access = try await keys.signer().sign(claims)
        return Auth.Tokens(accessToken: access, refreshToken: refresh, expiresIn: Int(configuration.accessTokenLifetime.milliseconds / 1000))
    }
}
