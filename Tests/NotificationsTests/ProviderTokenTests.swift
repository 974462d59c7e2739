import Crypto
import Foundation
import JWTKit
import NotificationsService
import Synchronization
import Testing

/// The provider JWT: shared, renewed only when old enough, and once when Apple says it expired.
@Suite(.timeLimit(.minutes(1))) struct ProviderTokenTests {
    struct Claims: JWTPayload {
        let iss: String
        let iat: Int64
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    @Test func signedWithTheKeyRenewedAfterTheIntervalAndOnceForAnExpiry() async throws {
        let key = P256.Signing.PrivateKey()
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let token = try APNsProviderToken(
            pem: key.pemRepresentation, keyID: "KEY1234567", teamID: "TEAM123456", refreshAfter: .seconds(1_200), now: { now.withLock { $0 } })
        let first = try await token.token()
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PublicKey(backing: key.publicKey), kid: JWKIdentifier(string: "KEY1234567"))
        let claims = try await keys.verify(first, as: Claims.self)
        #expect(claims.iss == "TEAM123456" && claims.iat == 1_800_000_000)

        now.withLock { $0 += 1_199 }
        #expect(try await token.token() == first, "not renewed before the interval")
        now.withLock { $0 += 1 }
        let second = try await token.token()
        #expect(second != first)

        // Two requests both refused with ExpiredProviderToken: one renewal between them.
        let renewed = try await token.renew(replacing: second)
        #expect(renewed != second)
        #expect(try await token.renew(replacing: second) == renewed)
    }
}
