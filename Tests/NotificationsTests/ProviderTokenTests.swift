import Crypto
import Foundation
import JWTKit
import NotificationsService
import PostgresSupport
import ServiceKit
import Testing
import TestSupport

/// The provider JWT: one per team and key for every instance, renewed only when old enough (by one
/// instance), and once when Apple says it expired.
@Suite(.timeLimit(.minutes(5))) struct ProviderTokenTests {
    struct Claims: JWTPayload {
        let iss: String
        let iat: Int64
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static let key = P256.Signing.PrivateKey()

    static func instance(_ database: Database, _ clock: MovableClock) throws -> APNsProviderToken {
        try APNsProviderToken(
            pem: key.pemRepresentation, keyID: "KEY1234567", teamID: "TEAM123456", refreshAfter: .seconds(1_200), database: database, now: clock.now)
    }

    @Test func signedWithTheKeyRenewedAfterTheIntervalAndOnceForAnExpiry() async throws {
        let clock = MovableClock(stopped: true)
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate(ServiceDefinition.notifications.migrations())
            let token = try Self.instance(database, clock)
            let first = try await token.token()
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: try ES256PublicKey(backing: Self.key.publicKey), kid: JWKIdentifier(string: "KEY1234567"))
            let claims = try await keys.verify(first, as: Claims.self)
            #expect(claims.iss == "TEAM123456" && claims.iat == Int64(clock.now().timeIntervalSince1970.rounded(.down)))

            clock.advance(.seconds(1_199))
            #expect(try await token.token() == first, "not renewed before the interval")
            clock.advance(.seconds(1))
            let second = try await token.token()
            #expect(second != first)

            // Two requests both refused with ExpiredProviderToken: one renewal between them.
            let renewed = try await token.renew(replacing: second)
            #expect(renewed != second)
            #expect(try await token.renew(replacing: second) == renewed)
            // Refused as updated too often: the shared one as it is, never a new one.
            #expect(try await token.reload(refused: renewed) == renewed)
        }
    }

    /// Apple keeps the first token of a team and key and refuses the others for 20 minutes: every
    /// caller of every instance must present the same one, at start, across a renewal and after a restart.
    @Test func everyCallerOfEveryInstancePresentsOneTokenAtStartAcrossARenewalAndAfterARestart() async throws {
        let clock = MovableClock(stopped: true)
        let schema = TestDatabase.freshSchema()
        let first = try TestDatabase.make(schema: schema), second = try TestDatabase.make(schema: schema)
        try await BusHarness.with([first, second]) {
            try await first.migrate(ServiceDefinition.notifications.migrations())
            let instances = [try Self.instance(first, clock), try Self.instance(second, clock)]
            func presented() async throws -> Set<String> {
                try await withThrowingTaskGroup(of: String.self) { group in
                    for index in 0..<40 { group.addTask { try await instances[index % 2].token() } }
                    return try await group.reduce(into: Set<String>()) { $0.insert($1) }
                }
            }
            let atStart = try await presented()
            #expect(atStart.count == 1, "\(atStart.count) tokens at start")

            clock.advance(.seconds(1_200))
            let renewed = try await presented()
            #expect(renewed.count == 1 && renewed != atStart, "\(renewed.count) tokens after the interval")

            // A restarted instance takes the shared token instead of signing its own.
            let restarted = try Self.instance(second, clock)
            #expect(try await restarted.token() == renewed.first)
        }
    }
}
