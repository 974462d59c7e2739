import AccessTokens
import Crypto
import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// The access-token signing keys: kept in `signing_keys` sealed with the key-encryption key, made at
/// first start, rotated after `keyRotation`. A retired key stays published (JWKS) until the last
/// token it signed has expired (an access-token lifetime plus the cache minute, since an instance may
/// sign with it until its cache refreshes). Every instance caches them for `keyCacheLifetime` (a minute).
public actor SigningKeys {
    private let database: Database
    private let configuration: AuthConfiguration
    private var cached: (current: SigningKey, published: [SigningKey], signer: AccessTokenSigner, loaded: Date)?
    /// How long an instance uses the keys it read before reading them again.
    private let cacheLifetime: Duration

    public init(database: Database, configuration: AuthConfiguration) {
        self.database = database
        self.configuration = configuration
        cacheLifetime = configuration.keyCacheLifetime
    }

    /// The signer of new tokens.
    public func signer() async throws -> AccessTokenSigner {
        try await load().signer
    }

    /// The keys whose tokens may still be valid, newest first.
    public func published() async throws -> [SigningKey] {
        try await load().published
    }

    private func load() async throws -> (current: SigningKey, published: [SigningKey], signer: AccessTokenSigner, loaded: Date) {
        if let cached, database.now().timeIntervalSince(cached.loaded) * 1000 < Double(cacheLifetime.milliseconds) { return cached }
        var keys = try await read()
        if keys.first?.isCurrent != true || keys.first!.age > configuration.keyRotation {
            try await rotate()
            keys = try await read()
        }
        guard let current = keys.first(where: \.isCurrent)?.key else { throw KeyProblem(description: "no current signing key after rotation") }
        let fresh = (current, keys.map(\.key), try await AccessTokenSigner(current: current), database.now())
        cached = fresh
        return fresh
    }

    private struct Stored: Sendable {
        let key: SigningKey
        let isCurrent: Bool
        let age: Duration
    }

    struct KeyProblem: Error, CustomStringConvertible {
        let description: String
    }

    nonisolated private func read() async throws -> [Stored] {
        // Another instance may keep signing with a key for up to `cacheLifetime` after it retired it.
        let lifetimeSeconds = Double((configuration.accessTokenLifetime + cacheLifetime).milliseconds) / 1000
        let ring = configuration.keys
        return try await database.transaction { connection in
            let rows = try await connection.query(
                """
                SELECT kid, sealed_private_key, retired_at IS NULL, (extract(epoch FROM \(database.now()) - created_at) * 1000)::bigint
                FROM signing_keys
                WHERE retired_at IS NULL OR retired_at > \(database.now()) - make_interval(secs => \(lifetimeSeconds))
                ORDER BY (retired_at IS NULL) DESC, created_at DESC
                """,
                logger: database.logger)
            var keys: [Stored] = []
            for try await (kid, sealed, current, ageMilliseconds) in rows.decode((String, Data, Bool, Int64).self) {
                keys.append(Stored(key: try Self.open(sealed, kid: kid, with: ring), isCurrent: current, age: .milliseconds(ageMilliseconds)))
            }
            return keys
        }
    }

    /// Retires the current key (if any) and makes a new one; instances racing here take turns.
    nonisolated private func rotate() async throws {
        let rotationSeconds = Double(configuration.keyRotation.milliseconds) / 1000
        let ring = configuration.keys
        try await database.transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('melon.auth.signing-keys'))", logger: database.logger)
            let fresh = try await connection.query(
                "SELECT 1 FROM signing_keys WHERE retired_at IS NULL AND created_at > \(database.now()) - make_interval(secs => \(rotationSeconds))",
                logger: database.logger)
            for try await _ in fresh { return }  // another instance rotated first
            try await connection.query("UPDATE signing_keys SET retired_at = \(database.now()) WHERE retired_at IS NULL", logger: database.logger)
            let key = SigningKey.generate()
            try await connection.query(
                "INSERT INTO signing_keys (kid, sealed_private_key, created_at) VALUES (\(key.kid), \(try Self.seal(key, with: ring)), \(database.now()))",
                logger: database.logger)
            database.logger.notice("new access-token signing key", metadata: ["kid": "\(key.kid)"])
        }
    }

    /// The private key sealed by the key ring, bound to its kid.
    static func seal(_ key: SigningKey, with ring: KeyRing) throws -> Data {
        try ring.seal(key.privateKey.rawRepresentation, context: key.kid)
    }

    static func open(_ sealed: Data, kid: String, with ring: KeyRing) throws -> SigningKey {
        do {
            let raw = try ring.open(sealed, context: kid)
            return SigningKey(kid: kid, privateKey: try P256.Signing.PrivateKey(rawRepresentation: raw))
        } catch {
            throw KeyProblem(description: "signing key \(kid) does not open with AUTH_KEY_ENCRYPTION_KEY or AUTH_KEY_ENCRYPTION_KEY_PREVIOUS (a different key?)")
        }
    }
}
