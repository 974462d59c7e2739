import AccessTokens
import Contracts
import Crypto
import Foundation
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// Sessions and their refresh tokens (stored as SHA-256) in the auth schema, on the caller's connection.
struct SessionPostgresRepository: Sendable {
    let database: Database
    /// Derives a used token's child, so a repeat within the grace window gets the child already issued.
    let childKey: SymmetricKey
    /// A session's end, from its login.
    let lifetime: Duration
    /// How long an ended session is remembered as revoked: until its last access token expires.
    let revokedFor: Duration

    /// The NOTIFY channel ended sessions are announced on at commit (see `RevocationAnnouncer`).
    static let revokedChannel = "sessions_revoked"

    init(database: Database, keyEncryptionKey: SymmetricKey, lifetime: Duration, accessTokenLifetime: Duration) {
        self.database = database
        childKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: keyEncryptionKey, info: Data("melon.auth.refresh-token-child".utf8), outputByteCount: 32)
        self.lifetime = lifetime
        // A minute beyond the token's life covers clocks a little apart.
        revokedFor = accessTokenLifetime + .seconds(60)
    }

    /// A new refresh token: 32 random bytes, base64url.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64URLEncodedString()
    }

    static func hash(_ token: String) -> Data { Data(SHA256.hash(data: Data(token.utf8))) }

    func startSession(for account: UUID, app: ClientApp, on connection: PostgresConnection) async throws -> UUID {
        let id = UUID()
        try await connection.query(
            "INSERT INTO sessions (id, account_id, app, created_at) VALUES (\(id), \(account), \(app.rawValue), \(database.now()))", logger: database.logger)
        return id
    }

    /// The child of `parent`: the same for every use of it, and nobody can tell it without the key.
    func child(of parent: String) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Data(parent.utf8), using: childKey)).base64URLEncodedString()
    }

    /// Stores a refresh token of `session` (a new one, or the child of `parent` unless it is stored
    /// already) and returns it in the clear. It expires after `lifetime`, or when the session does.
    func issueToken(session: UUID, parent: String?, lifetime: Duration, on connection: PostgresConnection) async throws -> String {
        let token = parent.map(child(of:)) ?? Self.newToken()
        try await connection.query(
            """
            INSERT INTO refresh_tokens (token_hash, session_id, parent_hash, expires_at)
            SELECT \(Self.hash(token)), \(session), \(parent.map(Self.hash)),
                least(\(database.now()) + make_interval(secs => \(Double(lifetime.milliseconds) / 1000)),
                      s.created_at + make_interval(secs => \(Double(self.lifetime.milliseconds) / 1000)))
            FROM sessions s WHERE s.id = \(session)
            ON CONFLICT (token_hash) DO NOTHING
            """,
            logger: database.logger)
        return token
    }

    struct PresentedToken: Sendable {
        let hash: Data
        let session: UUID
        let account: UUID
        /// The app the session is for; nil for a session started before sessions named it.
        let app: ClientApp?
        let sessionRevoked: Bool
        let expired: Bool
        /// Seconds since the token was first used, nil when unused.
        let usedAgo: Double?
        /// Whether a child of this token has been used in turn (so it is not the latest rotation's parent).
        let childUsed: Bool
    }

    func presented(_ token: String, on connection: PostgresConnection) async throws -> PresentedToken? {
        let hash = Self.hash(token)
        let rows = try await connection.query(
            """
            SELECT t.session_id, s.account_id, s.app, s.revoked_at IS NOT NULL,
                t.expires_at <= \(database.now()) OR s.created_at + make_interval(secs => \(Double(lifetime.milliseconds) / 1000)) <= \(database.now()),
                extract(epoch FROM \(database.now()) - t.used_at)::float8,
                EXISTS (SELECT 1 FROM refresh_tokens c WHERE c.parent_hash = t.token_hash AND c.used_at IS NOT NULL)
            FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id
            WHERE t.token_hash = \(hash) FOR UPDATE OF t, s
            """,
            logger: database.logger)
        for try await (session, account, app, revoked, expired, usedAgo, childUsed)
            in rows.decode((UUID, UUID, String?, Bool, Bool, Double?, Bool).self)
        {
            return PresentedToken(
                hash: hash, session: session, account: account, app: app.flatMap(ClientApp.init(rawValue:)), sessionRevoked: revoked,
                expired: expired, usedAgo: usedAgo, childUsed: childUsed)
        }
        return nil
    }

    func markUsed(_ hash: Data, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE refresh_tokens SET used_at = \(database.now()) WHERE token_hash = \(hash) AND used_at IS NULL", logger: database.logger)
    }

    /// Whether `session` of `account` is live (not ended, the account not deleted).
    func isLive(session: UUID, account: UUID, on connection: PostgresConnection) async throws -> Bool {
        for try await _ in try await connection.execute(LiveSession(session: session, account: account), logger: database.logger) { return true }
        return false
    }

    /// Asked by every signed-in call to auth.
    private struct LiveSession: PreparedRows {
        static let name = "auth_live_session"
        static let sql = "SELECT 1 FROM sessions WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL"
        let session: UUID, account: UUID
        func makeBindings() throws -> PostgresBindings { try .values(session, account) }
    }

    /// Ends sessions: one, or every live one of an account but `except`. Returns how many ended.
    /// Their access tokens stop working at every gateway: the ends are kept in `revoked_sessions`
    /// and announced at commit. The devices registered in them stop receiving pushes: the
    /// notifications service hears of the ended sessions through the outbox, in this transaction.
    func revoke(session: UUID? = nil, account: UUID? = nil, except: UUID? = nil, reason: String,
                on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            """
            UPDATE sessions SET revoked_at = \(database.now()), revoked_reason = \(reason)
            WHERE revoked_at IS NULL AND (id = \(session) OR account_id = \(account)) AND id IS DISTINCT FROM \(except) RETURNING id, account_id
            """,
            logger: database.logger)
        var ended: [UUID: [String]] = [:]
        for try await (id, owner) in rows.decode((UUID, UUID).self) { ended[owner, default: []].append(id.uuidString.lowercased()) }
        let all = ended.values.flatMap { $0 }
        guard !all.isEmpty else { return 0 }
        try await connection.query(
            """
            INSERT INTO revoked_sessions (session_id, until)
            SELECT unnest(\(all)::uuid[]), \(database.now()) + make_interval(secs => \(Double(revokedFor.milliseconds) / 1000))
            ON CONFLICT (session_id) DO UPDATE SET until = excluded.until
            """,
            logger: database.logger)
        // A payload is at most 8,000 bytes: 150 ids of 37 bytes, after the expiry in seconds.
        let until = Int64(database.now().timeIntervalSince1970) + revokedFor.milliseconds / 1000
        for chunk in stride(from: 0, to: all.count, by: 150) {
            try await database.notify(
                Self.revokedChannel, ([String(until)] + all[chunk..<min(chunk + 150, all.count)]).joined(separator: " "), on: connection)
        }
        for (owner, sessions) in ended {
            for chunk in stride(from: 0, to: sessions.count, by: 1_000) {
                try await database.enqueue(
                    Notifications.Sessions.End.self,
                    .init(account: owner.uuidString.lowercased(), sessions: Array(sessions[chunk..<min(chunk + 1_000, sessions.count)])), on: connection)
            }
        }
        return all.count
    }

    /// A page of the ended sessions whose access tokens may still be valid, ordered by id after `after`.
    func revoked(after: UUID?, limit: Int, on connection: PostgresConnection) async throws -> [(session: UUID, until: Date)] {
        let rows = try await connection.query(
            """
            SELECT session_id, until FROM revoked_sessions
            WHERE until > \(database.now()) AND (\(after)::uuid IS NULL OR session_id > \(after)) ORDER BY session_id LIMIT \(limit)
            """,
            logger: database.logger)
        var page: [(session: UUID, until: Date)] = []
        for try await (session, until) in rows.decode((UUID, Date).self) { page.append((session, until)) }
        return page
    }

    /// Forgets ended sessions whose access tokens have all expired.
    func forgetExpiredRevocations(on connection: PostgresConnection) async throws -> Int {
        try await connection.query("DELETE FROM revoked_sessions WHERE until <= \(database.now()) RETURNING 1", logger: database.logger).collect().count
    }
}
