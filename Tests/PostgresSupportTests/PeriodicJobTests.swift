import Foundation
import PostgresNIO
import PostgresSupport
import Testing
import TestSupport

/// Periodic jobs: one instance a round, whatever the number running.
@Suite(.timeLimit(.minutes(2))) struct PeriodicJobTests {
    @Test func aRoundRunsInOneInstanceWhileAnotherHoldsTheJob() async throws {
        let database = try TestDatabase.make(maximumConnections: 4)
        try await BusHarness.with([database]) {
            try await database.migrate(MigrationTests.migrations)
            let (entered, enter) = AsyncStream.makeStream(of: Void.self)
            let (release, finish) = AsyncStream.makeStream(of: Void.self)
            let slow = PeriodicJob("sweep", every: .seconds(3600), database: database) { _ in
                enter.yield()
                for await _ in release {}
                return 7
            }
            let other = PeriodicJob("sweep", every: .seconds(3600), database: database) { _ in 1 }
            async let first = slow.round()
            for await _ in entered { break }
            #expect(await other.round() == nil, "the job is held by the first round")
            finish.finish()
            #expect(await first == 7)
            #expect(await other.round() == 1, "free again once the first round committed")
        }
    }
}
