import Foundation
import PostgresNIO
import PostgresSupport
import ServiceLifecycle
import Synchronization
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(5))) struct MigrationTests {
    static let migrations = try! Migration.load(from: Bundle.module.resourceURL!.appendingPathComponent("Migrations"))

    @Test func migrationFilesLoadInVersionOrder() {
        #expect(Self.migrations.map(\.version) == [1, 2, 3])
        #expect(Self.migrations.map(\.name) == ["create_things", "add_amount", "create_received"])
    }

    @Test func manyInstancesStartingTogetherApplyEachMigrationOnce() async throws {
        let schema = TestDatabase.freshSchema()
        // Separate pools, so separate sessions, as separate processes would have.
        let instances = try (0..<4).map { _ in try TestDatabase.make(schema: schema, maximumConnections: 2) }
        try await BusHarness.with(instances) {
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                for database in instances { group.addTask { try await database.migrate(Self.migrations) } }
                return try await group.reduce(into: [Int]()) { $0 += $1 }
            }
            #expect(applied.sorted() == [1, 2, 3])
            #expect(try await instances[0].migrate(Self.migrations).isEmpty)
            let rows = try await instances[1].transaction { connection in
                var names: [String] = []
                for try await name in try await connection.query("SELECT name FROM things", logger: instances[1].logger).decode(String.self) {
                    names.append(name)
                }
                return names
            }
            #expect(rows == ["seed"])
        }
    }

    /// Cancelled at any moment of its start (mid-migration, mid-query), a service's start ends, because
    /// its pool outlives the queries under way. With the pool run beside it as a service of its own,
    /// cancelled with it, a query whose connection the pool closed waited forever: about one start in
    /// three cancelled in its first 80 ms never ended.
    @Test func aStartCancelledAtAnyMomentEnds() async throws {
        struct Querying: Service {
            let database: Database
            func run() async throws {
                while !Task.isCancelled {
                    try await database.transaction { connection in
                        try await connection.query("SELECT pg_sleep(0.005), count(*) FROM things", logger: database.logger)
                    }
                }
            }
        }
        for round in 0..<12 {
            let database = try TestDatabase.make()
            let start = RunAfterMigrations(database: database, migrations: Self.migrations, services: [Querying(database: database)])
            let stopping = Mutex(ContinuousClock.now)
            try await BusHarness.with([start]) {
                try await Task.sleep(for: .milliseconds(round * 8))
                stopping.withLock { $0 = .now }
            }
            let stopped = stopping.withLock { $0 }.duration(to: .now)
            // A bound on the hang (it never ended), not a speed: with the whole suite beside it on
            // 2 cores, an end (the pool closing its connections) took 15 to 21 s.
            #expect(stopped < .seconds(60), "cancelled \(round * 8) ms after its start, it took \(stopped) to end")
        }
    }

    @Test func aTransactionThatThrowsLeavesNothingBehind() async throws {
        let database = try TestDatabase.make()
        struct Boom: Error {}
        let count = try await BusHarness.with([database]) {
            try await database.migrate(Self.migrations)
            await #expect(throws: Boom.self) {
                try await database.transaction { connection in
                    try await connection.query("INSERT INTO things (name) VALUES ('doomed')", logger: database.logger)
                    throw Boom()
                }
            }
            return try await database.transaction { connection in
                try await connection.query("SELECT count(*) FROM things WHERE name = 'doomed'", logger: database.logger)
                    .decode(Int.self).reduce(0, +)
            }
        }
        #expect(count == 0)
    }

    @Test func everySessionOfTheDatabaseStartsInItsSchema() async throws {
        let database = try TestDatabase.make()
        let count = try await BusHarness.with([database]) {
            try await database.migrate(Self.migrations)
            // Outside a transaction, on any pooled connection, the table needs no schema name.
            return try await database.client.query("SELECT count(*) FROM things", logger: database.logger).decode(Int.self).reduce(0, +)
        }
        #expect(count == 1)
    }

    @Test func urlsAreReadAndBadOnesNamed() throws {
        let url = try DatabaseURL("postgres://melon:secret@127.0.0.1:25432/melon?sslmode=disable")
        #expect(url.configuration.host == "127.0.0.1" && url.configuration.port == 25432)
        #expect(url.configuration.username == "melon" && url.configuration.password == "secret")
        #expect(url.configuration.database == "melon")
        #expect(!url.description.contains("secret"))
        #expect(throws: DatabaseURL.Invalid.self) { try DatabaseURL("mysql://x@y/z") }
        #expect(throws: DatabaseURL.Invalid.self) { try DatabaseURL("postgres://x@y/z?sslmode=sometimes") }
    }
}
