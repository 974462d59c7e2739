import Crypto
import Foundation
import JWTKit
import Metrics
import PostgresNIO
import PostgresSupport

/// The provider authentication token every APNs request presents: an ES256 JWT (`kid` the key id,
/// `iss` the team id, `iat` when signed). Apple limits token updates per team and key, not per
/// connection or process (`TooManyProviderTokenUpdates`), so every instance presents the same one:
/// it lives in the database (`provider_tokens`), and the instance that first finds it
/// `refreshAfter` old (Apple wants 20 to 60 minutes) renews it under the row's lock while the others
/// wait and take it. Within an instance one lookup or signing is in flight at a time, and every
/// caller awaits it. The one early renewal is when Apple says the token expired
/// (`ExpiredProviderToken`): then the refused token is renewed once, however many requests saw it.
public actor APNsProviderToken {
    private let key: ES256PrivateKey
    private var keys: JWTKeyCollection?
    private let keyID: String
    private let teamID: String
    private let refreshAfter: Duration
    private let database: Database
    private let now: @Sendable () -> Date
    private var current: Issued?
    private var inFlight: Task<Issued, any Error>?
    private let renewals = Counter(label: "melon_push_provider_token_renewals_total")

    struct Issued: Sendable {
        let token: String
        let issuedAt: Date
    }

    /// What a lookup does with the shared token.
    enum Lookup: Sendable {
        /// Takes it, renewing it when it is `refreshAfter` old.
        case fresh
        /// Takes it unless it is `refused`, which is renewed.
        case replacing(String)
        /// Takes it as it is, signing only when there is none.
        case reading
    }

    /// Throws when `pem` is not a P-256 private key (a `.p8` file from Apple is one).
    public init(pem: String, keyID: String, teamID: String, refreshAfter: Duration, database: Database,
                now: @escaping @Sendable () -> Date = { Date() }) throws {
        key = try ES256PrivateKey(backing: P256.Signing.PrivateKey(pemRepresentation: pem))
        self.keyID = keyID
        self.teamID = teamID
        self.refreshAfter = refreshAfter
        self.database = database
        self.now = now
    }

    /// The current token: the instance's copy while it is young enough, else the shared one (renewed
    /// when it is `refreshAfter` old).
    public func token() async throws -> String {
        if let current, isFresh(current) { return current.token }
        return try await once(.fresh)
    }

    /// After APNs answered `ExpiredProviderToken` to `refused`: the shared token if another instance
    /// or request already replaced it, else a new one.
    public func renew(replacing refused: String) async throws -> String {
        if let current, current.token != refused { return current.token }
        return try await once(.replacing(refused))
    }

    /// After APNs answered `TooManyProviderTokenUpdates` to `refused`: the shared token as it is
    /// now (another instance may have renewed it a moment before), never a new one.
    public func reload(refused: String) async throws -> String {
        if let current, current.token != refused { return current.token }
        return try await once(.reading)
    }

    /// Runs `lookup` unless one is in flight, which every caller then awaits.
    private func once(_ lookup: Lookup) async throws -> String {
        if let inFlight { return try await inFlight.value.token }
        let task = Task { try await self.shared(lookup) }
        inFlight = task
        defer { inFlight = nil }
        let issued = try await task.value
        current = issued
        return issued.token
    }

    private func isFresh(_ issued: Issued) -> Bool {
        Self.isFresh(issued, at: now(), refreshAfter: refreshAfter)
    }

    private static func isFresh(_ issued: Issued, at now: Date, refreshAfter: Duration) -> Bool {
        now.timeIntervalSince(issued.issuedAt) < Double(refreshAfter.milliseconds) / 1000
    }

    /// The shared token, renewed under its row's lock when `lookup` says so.
    private func shared(_ lookup: Lookup) async throws -> Issued {
        let database = database, teamID = teamID, keyID = keyID, now = now, refreshAfter = refreshAfter, renewals = renewals
        let keys = try await signingKeys()
        return try await database.transaction { @Sendable connection in
            try await connection.query(
                "INSERT INTO provider_tokens (team_id, key_id) VALUES (\(teamID), \(keyID)) ON CONFLICT DO NOTHING", logger: database.logger)
            let rows = try await connection.query(
                "SELECT token, issued_at FROM provider_tokens WHERE team_id = \(teamID) AND key_id = \(keyID) FOR UPDATE", logger: database.logger)
            var stored: Issued?
            for try await (token, issuedAt) in rows.decode((String?, Date?).self) {
                if let token, let issuedAt { stored = Issued(token: token, issuedAt: issuedAt) }
            }
            if let stored {
                switch lookup {
                case .fresh where Self.isFresh(stored, at: now(), refreshAfter: refreshAfter): return stored
                case .replacing(let refused) where stored.token != refused: return stored
                case .reading: return stored
                default: break
                }
            }
            let issued = try await Self.sign(keys: keys, teamID: teamID, keyID: keyID, at: now())
            renewals.increment()
            try await connection.query(
                "UPDATE provider_tokens SET token = \(issued.token), issued_at = \(issued.issuedAt) WHERE team_id = \(teamID) AND key_id = \(keyID)",
                logger: database.logger)
            return issued
        }
    }

    private static func sign(keys: JWTKeyCollection, teamID: String, keyID: String, at now: Date) async throws -> Issued {
        // Whole seconds, as `iat` says, so that every instance computes the same age.
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let token = try await keys.sign(Claims(iss: teamID, iat: Int64(issuedAt.timeIntervalSince1970)), kid: JWKIdentifier(string: keyID))
        return Issued(token: token, issuedAt: issuedAt)
    }

    private func signingKeys() async throws -> JWTKeyCollection {
        if let keys { return keys }
        let collection = JWTKeyCollection()
        await collection.add(ecdsa: key, kid: JWKIdentifier(string: keyID))
        keys = collection
        return collection
    }

    struct Claims: JWTPayload {
        let iss: String
        let iat: Int64

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}
