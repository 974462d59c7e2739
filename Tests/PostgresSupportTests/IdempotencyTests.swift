import Crypto
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2))) struct IdempotencyTests {
    /// Records one effect and answers with its id, under `key` of `caller`.
    private func record(_ database: Database, key: String, note: String, caller: String = "") async throws -> String {
        try await database.transaction { connection in
            let record = IdempotencyRecord(operation: "test.effect.record.v1", caller: caller, key: key)
            let reply = try await database.once(record, fingerprint: Array(note.utf8), on: connection) {
                let id = try await connection.query("INSERT INTO effects (note) VALUES (\(note)) RETURNING id", logger: database.logger)
                    .decode(Int.self).reduce(0) { $1 }
                return Array("effect-\(id)".utf8)
            }
            return String(decoding: reply, as: UTF8.self)
        }
    }

    private func effects(_ database: Database) async throws -> Int {
        try await database.transaction { connection in
            try await connection.query("SELECT count(*) FROM effects", logger: database.logger).decode(Int.self).reduce(0, +)
        }
    }

    @Test func theSameKeyTwiceHasOneEffectAndTheSameReply() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate(MigrationTests.migrations)
            let first = try await record(database, key: "k-1", note: "pay rent")
            let second = try await record(database, key: "k-1", note: "pay rent")
            #expect(first == second)
            #expect(try await effects(database) == 1)
            _ = try await record(database, key: "k-2", note: "pay rent")
            #expect(try await effects(database) == 2)
            _ = try await record(database, key: "k-1", note: "pay rent", caller: "another account")
            #expect(try await effects(database) == 3, "each caller has keys of its own")
        }
    }

    @Test func theSameKeyWithAnotherRequestIsAConflict() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate(MigrationTests.migrations)
            _ = try await record(database, key: "k-1", note: "pay rent")
            await #expect {
                try await record(database, key: "k-1", note: "pay twice the rent")
            } throws: { error in
                (error as? OperationError)?.code == .conflict
            }
            #expect(try await effects(database) == 1)
        }
    }

    @Test func racingRequestsWithOneKeyHaveOneEffect() async throws {
        let database = try TestDatabase.make(maximumConnections: 8)
        try await BusHarness.with([database]) {
            try await database.migrate(MigrationTests.migrations)
            let replies = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 { group.addTask { try await record(database, key: "race", note: "once") } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(replies.count == 1)
            #expect(try await effects(database) == 1)
        }
    }

    @Test func aRolledBackFirstAttemptLeavesTheKeyFree() async throws {
        let database = try TestDatabase.make()
        struct Crash: Error {}
        try await BusHarness.with([database]) {
            try await database.migrate(MigrationTests.migrations)
            await #expect(throws: Crash.self) {
                try await database.transaction { connection in
                    let record = IdempotencyRecord(operation: "test.effect.record.v1", caller: "", key: "k")
                    _ = try await database.once(record, fingerprint: Array("x".utf8), on: connection) { throw Crash() }
                }
            }
            #expect(try await record(database, key: "k", note: "x").hasPrefix("effect-"))
            #expect(try await effects(database) == 1)
        }
    }

    /// How a record's row is found (`IdempotencyRecord.lookup`), as SQL computes it.
    static func lookup(_ key: String, caller: String) -> String {
        SHA256.hash(data: Data("test.effect.record.v1\n\(caller)\n\(key)".utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A reply stored before replies were sealed (the key and reply in the clear) is found by the
    /// kit's migration's hash of its key, and answers its repeat; the migration leaves no key in the clear.
    @Test func aReplyStoredBeforeTheSealingStillAnswersItsRepeat() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate(MigrationTests.migrations)
            try await database.transaction { connection in
                try await connection.query(
                    """
                    INSERT INTO idempotency_records (operation, caller, key, fingerprint, reply, sealed)
                    VALUES ('test.effect.record.v1', 'ana', 'k-old', \(Data("pay rent".utf8)), \(Data("effect-41".utf8)), NULL)
                    """,
                    logger: database.logger)
            }
            try await database.migrate(MigrationTests.migrations)
            #expect(try await record(database, key: "k-old", note: "pay rent", caller: "ana") == "effect-41")
            #expect(try await effects(database) == 0)
            let plain = try await database.transaction { connection in
                try await connection.query("SELECT count(*)::int FROM idempotency_records WHERE key = 'k-old'", logger: database.logger).decode(Int.self).reduce(0, +)
            }
            #expect(plain == 0)
        }
    }

    @Test func recordsExpireAndGoWithTheirCaller() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate(MigrationTests.migrations)
            _ = try await record(database, key: "old", note: "x", caller: "ana")
            _ = try await record(database, key: "new", note: "x", caller: "ana")
            _ = try await record(database, key: "new", note: "x", caller: "cara")
            try await database.transaction { connection in
                try await connection.query(
                    "UPDATE idempotency_records SET created_at = now() - interval '2 days' WHERE key = \(Self.lookup("old", caller: "ana"))",
                    logger: database.logger)
                #expect(try await database.expireIdempotency(olderThan: .seconds(86_400), on: connection) == 1)
                #expect(try await database.forgetIdempotency(caller: "ana", on: connection) == 1)
            }
            #expect(try await record(database, key: "new", note: "x", caller: "cara").hasPrefix("effect-"))
            #expect(try await effects(database) == 3, "cara's record stayed, so her repeat did not act again")
        }
    }
}
