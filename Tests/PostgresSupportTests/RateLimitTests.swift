import Envelope
import Foundation
import PostgresNIO
import PostgresSupport
import Testing
import TestSupport

/// The kit's limiter on a real database, with time given, not waited for.
@Suite(.timeLimit(.minutes(2))) struct RateLimitTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)  // a multiple of 100 s: a fixed window starts here

    /// One hit in its own transaction; the refusal, if any.
    private func hit(_ database: Database, _ limit: RateLimit, _ keys: [RateLimitKey], after seconds: Double) async throws -> OperationError? {
        do {
            try await database.transaction { try await database.hit(limit, keys, at: Self.start.addingTimeInterval(seconds), on: $0) }
            return nil
        } catch let error as OperationError {
            return error
        }
    }

    @Test func aSlidingWindowRefusesTheNextUntilTheOldestLeavesIt() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate([])
            let limit = RateLimit("invites.per.account", count: 3, per: .seconds(100), message: "too many invites")
            let ana = RateLimitKey.account("ana")
            for second in [0.0, 10, 20] { #expect(try await hit(database, limit, [ana], after: second) == nil) }
            let refused = try #require(try await hit(database, limit, [ana], after: 30))
            #expect(refused.code == .rateLimited && refused.message == "too many invites" && refused.retryAfter == 70, "the first leaves at 100: \(refused)")
            #expect(try await hit(database, limit, [.account("ben")], after: 30) == nil, "each key counts alone")
            #expect(try await hit(database, limit, [ana], after: 100.5) == nil, "the first has left")
            #expect(try await hit(database, limit, [ana], after: 101)?.retryAfter == 9, "the next leaves at 110")
        }
    }

    @Test func aFixedWindowStartsAfreshAtItsBoundary() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate([])
            let limit = RateLimit("reports.per.network", count: 2, per: .seconds(100), .fixed, message: "too many reports")
            let network = RateLimitKey.network("198.51.100.7")
            #expect(try await hit(database, limit, [network], after: 0) == nil)
            #expect(try await hit(database, limit, [network], after: 90) == nil)
            #expect(try await hit(database, limit, [network], after: 95)?.retryAfter == 5)
            #expect(try await hit(database, limit, [network], after: 100) == nil, "a new window")
        }
    }

    /// Requests at once for one key: exactly the allowance passes, and a refused request counts
    /// nothing, not even against its other keys.
    @Test func concurrentHitsPassNoMoreThanTheCountAndARefusalCountsNothing() async throws {
        let database = try TestDatabase.make(maximumConnections: 8)
        try await BusHarness.with([database]) {
            try await database.migrate([])
            let limit = RateLimit("messages.per.account", count: 5, per: .seconds(60), message: "slow down")
            let passed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 { group.addTask { try await hit(database, limit, [.account("ana")], after: 1) == nil } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(passed == 5)
            #expect(try await hit(database, limit, [.account("ana"), .other("listing:1")], after: 2) != nil)
            let usage = try await database.transaction { try await database.usage(limit, .other("listing:1"), at: Self.start.addingTimeInterval(2), on: $0) }
            #expect(usage.used == 0, "the refused request left no count on its other key")
        }
    }

    /// The table holds hashes, never the address or the network; an erased account's counts go,
    /// and counts past their window are swept.
    @Test func keysAreHashedForgottenAndExpired() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate([])
            let limit = RateLimit("contacts.per.email", count: 3, per: .seconds(100), message: "enough")
            #expect(try await hit(database, limit, [.other("email:ana@tcd.ie"), .account("acct-1")], after: 0) == nil)
            let keys = try await database.transaction { connection -> [String] in
                let rows = try await connection.query("SELECT key FROM rate_limit_hits", logger: database.logger)
                var keys: [String] = []
                for try await key in rows.decode(String.self) { keys.append(key) }
                return keys
            }
            #expect(keys.count == 2 && keys.allSatisfy { $0.wholeMatch(of: /[0-9a-f]{64}/) != nil }, "\(keys)")
            try await database.transaction { try await database.forgetRateLimits(.account("acct-1"), on: $0) }
            let expired = try await database.transaction { try await database.expireRateLimits(at: Self.start.addingTimeInterval(101), on: $0) }
            #expect(expired == 1, "the address's count, past its window; the account's was forgotten")
        }
    }
}
