import Crypto
import Foundation
import PostgresNIO
import PostgresSupport
import Testing
import TestSupport

/// Data keys per account, sealed by a key ring from the environment, on a real database: a rotation
/// keeps every key readable and seals them again under the new key.
@Suite(.timeLimit(.minutes(2))) struct SealingTests {
    @Test func aBoxOpensOnlyWithItsKeyAndItsContext() throws {
        let ring = KeyRing(current: SymmetricKey(size: .bits256))
        let box = try ring.seal(Data("912-70-1234".utf8), context: "acct-1/2024/interview")
        #expect(ring.isCurrent(box) && !box.contains(Data("912".utf8)))
        #expect(try ring.open(box, context: "acct-1/2024/interview") == Data("912-70-1234".utf8))
        #expect(throws: SealError.self, "moved to another row") { try ring.open(box, context: "acct-2/2024/interview") }
        #expect(throws: SealError.self, "another key") { try KeyRing(current: SymmetricKey(size: .bits256)).open(box, context: "acct-1/2024/interview") }
    }

    @Test func aRotationKeepsEveryKeyReadableAndSealsThemAgainUnderTheNewKey() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate([])
            let old = SymmetricKey(size: .bits256), new = SymmetricKey(size: .bits256)
            let (ana, ben, cian) = (UUID(), UUID(), UUID())
            let before = KeyRing(current: old)
            let anaKey = try await database.transaction { try await database.accountKey(ana, create: true, ring: before, on: $0) }
            #expect(try await database.transaction { try await database.accountKey(ana, create: true, ring: before, on: $0) } == anaKey, "made once")
            _ = try await database.transaction { try await database.accountKey(ben, create: true, ring: before, on: $0) }
            // A box from before the ring had headers (tax-form's data keys): sealed with the key alone.
            let legacy = try Seal.seal(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }, key: old, context: cian.uuidString)
            try await database.transaction { connection in
                try await connection.query("INSERT INTO account_keys (account_id, wrapped) VALUES (\(cian), \(legacy))", logger: database.logger)
            }

            let rotating = KeyRing(current: new, previous: [old])
            #expect(try await database.transaction { try await database.accountKey(ana, create: false, ring: rotating, on: $0) } == anaKey)
            #expect(try await database.transaction { try await database.rewrapAccountKeys(ring: rotating, on: $0) } == 3)
            #expect(try await database.transaction { try await database.rewrapAccountKeys(ring: rotating, on: $0) } == 0, "nothing left under the old key")
            let after = KeyRing(current: new)
            #expect(try await database.transaction { try await database.accountKey(ana, create: false, ring: after, on: $0) } == anaKey, "the old key may go")
            #expect(try await database.transaction { try await database.accountKey(cian, create: false, ring: after, on: $0) } != nil)

            try await database.transaction { try await database.forgetAccountKey(ben, on: $0) }
            #expect(try await database.transaction { try await database.accountKey(ben, create: false, ring: after, on: $0) } == nil)
        }
    }
}
