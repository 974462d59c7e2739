import Crypto
import Foundation
import JWTKit
import Metrics

/// The provider authentication token every APNs connection of the process shares: an ES256 JWT
/// (`kid` the key id, `iss` the team id, `iat` when signed) renewed once it is `refreshAfter` old,
/// which Apple wants between 20 and 60 minutes: never more often, since Apple refuses a provider
/// that renews too often (`TooManyProviderTokenUpdates`). The one exception is Apple saying the token
/// expired (`ExpiredProviderToken`): then the token that was refused is renewed, once, however many
/// requests saw the refusal.
public actor APNsProviderToken {
    private let key: ES256PrivateKey
    private var keys: JWTKeyCollection?
    private let keyID: JWKIdentifier
    private let teamID: String
    private let refreshAfter: Duration
    private let now: @Sendable () -> Date
    private var current: (token: String, issuedAt: Date)?
    private let renewals = Counter(label: "melon_push_provider_token_renewals_total")

    /// Throws when `pem` is not a P-256 private key (a `.p8` file from Apple is one).
    public init(pem: String, keyID: String, teamID: String, refreshAfter: Duration, now: @escaping @Sendable () -> Date = { Date() }) throws {
        key = try ES256PrivateKey(backing: P256.Signing.PrivateKey(pemRepresentation: pem))
        self.keyID = JWKIdentifier(string: keyID)
        self.teamID = teamID
        self.refreshAfter = refreshAfter
        self.now = now
    }

    /// The current token, signed anew when it is `refreshAfter` old.
    public func token() async throws -> String {
        if let current, now().timeIntervalSince(current.issuedAt) < Double(refreshAfter.milliseconds) / 1000 { return current.token }
        return try await sign()
    }

    /// After APNs answered `ExpiredProviderToken` to `refused`: a new token, unless another request
    /// already renewed it (then that one).
    public func renew(replacing refused: String) async throws -> String {
        if let current, current.token != refused { return current.token }
        return try await sign()
    }

    private func sign() async throws -> String {
        let keys = try await signingKeys()
        let issuedAt = now()
        let token = try await keys.sign(Claims(iss: teamID, iat: Int64(issuedAt.timeIntervalSince1970)), kid: keyID)
        current = (token, issuedAt)
        renewals.increment()
        return token
    }

    private func signingKeys() async throws -> JWTKeyCollection {
        if let keys { return keys }
        let collection = JWTKeyCollection()
        await collection.add(ecdsa: key, kid: keyID)
        keys = collection
        return collection
    }

    struct Claims: JWTPayload {
        let iss: String
        let iat: Int64

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}
