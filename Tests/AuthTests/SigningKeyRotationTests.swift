import AccessTokens
@testable import AuthService
import Crypto
import Foundation
import JWTKit
import PostgresSupport
import ServiceSupport
import ServiceKit
import Testing
import TestSupport

/// Rotation on a real database with a short rotation, token lifetime and cache: the retired key
/// stays published while its tokens may live, then leaves; instances rotating together make one key.
@Suite(.timeLimit(.minutes(2))) struct SigningKeyRotationTests {
    let configuration: AuthConfiguration = {
        // The declared settings, with times shorter than any deployment may set.
        var configuration = try! ProcessSettings.declared(
            Setting.authSettings, process: "auth", environment: ["AUTH_KEY_ENCRYPTION_KEY": Setting.authKeyEncryptionKey.localValue!]
        ).authConfiguration()
        configuration.keyRotation = .milliseconds(1500)
        configuration.accessTokenLifetime = .seconds(4)
        configuration.keyCacheLifetime = .milliseconds(100)
        return configuration
    }()

    func token(_ keys: SigningKeys) async throws -> String {
        try await keys.signer().sign(AccessTokenClaims(
            subject: "acct", session: "sess", university: nil, roles: ["user"], app: "melon", audience: "melon", issuer: configuration.issuer,
            issuedAt: Date(), expiresAt: Date().addingTimeInterval(4)))
    }

    func verifies(_ token: String, against keys: SigningKeys) async throws -> Bool {
        let jwks = JWKS(keys: try await keys.published().map { try $0.jwk() })
        let verifier = try await AccessTokenVerifier(jwks: jwks, audience: "melon", issuer: configuration.issuer)
        do {
            _ = try await verifier.verify(token)
            return true
        } catch {
            return false
        }
    }

    @Test func aRetiredKeyIsPublishedWhileItsTokensLiveAndNotAfter() async throws {
        let clock = MovableClock()
        let database = try TestDatabase.make(now: clock.now)
        try await BusHarness.with([database]) {
            try await database.migrate(ServiceDefinition.auth.migrations())
            let keys = SigningKeys(database: database, configuration: configuration)
            let first = try await token(keys)
            let firstKid = try #require(AccessTokenVerifier.header(of: first)?.kid)

            clock.advance(.milliseconds(1700))  // past the rotation
            let second = try await token(keys)
            let secondKid = try #require(AccessTokenVerifier.header(of: second)?.kid)
            #expect(secondKid != firstKid, "a new key signs after the rotation")
            let both = try await keys.published().map(\.kid)
            #expect(both.first == secondKid && both.contains(firstKid), "the new key first, the retired one still published: \(both)")
            #expect(try await verifies(first, against: keys), "a token of the retired key still verifies")

            // The retired key's tokens have expired (4 s) and every cache has turned over (0.1 s).
            clock.advance(.milliseconds(4400))
            let published = try await keys.published().map(\.kid)
            #expect(!published.contains(firstKid), "gone once its tokens cannot be valid: \(published)")
            #expect(published.contains(secondKid), "the key retired just now stays")
        }
    }

    @Test func instancesRotatingTogetherMakeOneKey() async throws {
        // A clock that stands still: on a busy machine the four signings may span more than the
        // 1.5 s rotation, and a second key would then be right.
        let database = try TestDatabase.make(now: MovableClock(stopped: true).now)
        try await BusHarness.with([database]) {
            try await database.migrate(ServiceDefinition.auth.migrations())
            let instances = (0..<4).map { _ in SigningKeys(database: database, configuration: configuration) }
            let kids = try await withThrowingTaskGroup(of: String.self) { group in
                for keys in instances {
                    group.addTask { try await AccessTokenVerifier.header(of: self.token(keys))?.kid ?? "" }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(kids.count == 1, "one key for all four instances")
        }
    }
}
