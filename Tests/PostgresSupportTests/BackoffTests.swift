import Envelope
import Foundation
import PostgresNIO
import PostgresSupport
import Testing
import TestSupport

/// The kit's back-off: its schedule, and its counters on a real database with time moved, not waited for.
@Suite(.timeLimit(.minutes(2))) struct BackoffTests {
    let limit = BackoffLimit("login.account", free: 3, first: .seconds(30), max: .seconds(900), window: .seconds(3600))

    @Test func failuresUpToTheFreeOnesAreNotBlockedAndEachFurtherOneDoublesUpToTheMaximum() {
        #expect((1...3).allSatisfy { limit.block(afterFailure: $0) == nil })
        let blocks = (4...10).map { limit.block(afterFailure: $0) }
        #expect(blocks == [.seconds(30), .seconds(60), .seconds(120), .seconds(240), .seconds(480), .seconds(900), .seconds(900)])
        #expect(limit.block(afterFailure: 10_000) == .seconds(900), "no overflow, never permanent")
    }

    /// One failure counted in its own transaction; the refusal, if any.
    private func fail(_ database: Database, _ keys: [BackoffKey], admitting: Bool = false) async throws -> OperationError? {
        do {
            _ = try await database.transaction { try await database.countFailure(keys, admitting: admitting, on: $0) }
            return nil
        } catch let error as OperationError {
            return error
        }
    }

    private func blocked(_ database: Database, _ keys: [BackoffKey]) async throws -> Int? {
        try await database.transaction { try await database.blocked(keys, on: $0) }
    }

    @Test func aKeyPastItsFreeFailuresIsBlockedUntilItsBlockEndsAndAdmittingRefusesUncounted() async throws {
        let clock = MovableClock(stopped: true)
        let database = try TestDatabase.make(now: clock.now)
        try await BusHarness.with([database]) {
            try await database.migrate([])
            let ana = BackoffKey(limit, .account("ana@tcd.ie")), ben = BackoffKey(limit, .account("ben@tcd.ie"))
            for _ in 0..<3 { #expect(try await fail(database, [ana]) == nil) }
            #expect(try await blocked(database, [ana]) == nil, "three free failures")
            let fourth = try await database.transaction { try await database.countFailure([ana, ben], on: $0) }
            #expect(fourth == [ana], "the fourth failure blocks, and says which key it blocked")
            #expect(try await blocked(database, [ben, ana]) == 30)
            #expect(try await blocked(database, [ben]) == nil, "each key counts alone")

            let refused = try #require(try await fail(database, [ben, ana], admitting: true))
            #expect(refused.code == .rateLimited && refused.retryAfter == 30, "\(refused)")
            #expect(try await fail(database, [ben]) == nil)
            #expect(try await database.transaction { try await database.countFailure([ben], on: $0) } == [], "ben's refused attempt counted nothing: 2 of 3")

            clock.advance(.seconds(31))
            #expect(try await blocked(database, [ana]) == nil, "the block ended")
            #expect(try await database.transaction { try await database.countFailure([ana], on: $0) } == [ana])
            #expect(try await blocked(database, [ana]) == 60, "the fifth failure doubles the block")

            clock.advance(.seconds(3600 + 61))
            #expect(try await database.transaction { try await database.countFailure([ana], on: $0) } == [], "past the window a key starts again")
        }
    }

    @Test func aSuccessResetsItsOwnCounterAndForgivesOneFailureOfTheOthers() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate([])
            let own = BackoffKey(limit, .other("ana from 192.0.2.1")), network = BackoffKey(limit, .network("192.0.2.1"))
            for _ in 0..<3 { #expect(try await fail(database, [network, own]) == nil) }
            try await database.transaction { connection in
                try await database.lockBackoffs([network, own], on: connection)
                try await database.succeeded(reset: [own], forgive: [network], on: connection)
            }
            #expect(try await database.transaction { try await database.countFailure([network, own], on: $0) } == [],
                    "own starts from zero, the network has two of three")
            #expect(try await database.transaction { try await database.countFailure([network, own], on: $0) } == [network])
        }
    }

    @Test func expiredCountersGoUnlessBlockedAndAnErasedAccountsAreForgotten() async throws {
        let clock = MovableClock(stopped: true)
        let database = try TestDatabase.make(now: clock.now)
        try await BusHarness.with([database]) {
            try await database.migrate([])
            let short = BackoffLimit("code.account", free: 0, first: .seconds(7200), max: .seconds(7200), window: .seconds(60))
            _ = try await fail(database, [BackoffKey(limit, .account("stale"))])
            _ = try await fail(database, [BackoffKey(short, .account("blocked"))])
            clock.advance(.seconds(3601))
            _ = try await fail(database, [BackoffKey(limit, .account("recent"))])
            _ = try await fail(database, [BackoffKey(limit, .account("erased"))])
            #expect(try await database.transaction { try await database.expireBackoffs(on: $0) } == 1, "the stale counter goes; the blocked one stays")
            try await database.transaction { try await database.forgetBackoffs(.account("erased"), on: $0) }
            #expect(try await blocked(database, [BackoffKey(short, .account("blocked"))]) != nil)
            let left = try await database.transaction { connection in
                try await connection.query("SELECT count(*)::int FROM backoffs", logger: database.logger).decode(Int.self).reduce(0, +)
            }
            #expect(left == 2, "the block in force and the recent counter")
        }
    }
}
