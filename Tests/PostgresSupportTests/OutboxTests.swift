import Bus
import Envelope
import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceLifecycle
import Testing
import TestSupport

/// A receiver for these tests: records each note once per envelope id.
enum SinkRecord: BusOperation {
    static let service = "sink"
    static let type = "sink.note.record.v1"
    struct Request: Codable, Sendable { var note: String }
    typealias Response = Empty
}

/// A service no worker serves: a call to it lasts until its deadline.
enum Unserved: BusOperation {
    static let service = "unserved"
    static let type = "unserved.note.record.v1"
    typealias Request = SinkRecord.Request
    typealias Response = Empty
}

@Suite(.timeLimit(.minutes(2))) struct OutboxTests {
    private func receiver(_ database: Database, endpoint: String) throws -> WorkerRuntime {
        var registry = OperationRegistry(service: SinkRecord.service)
        registry.register(SinkRecord.self) { request, context in
            try await database.transaction { connection in
                let record = IdempotencyRecord(operation: SinkRecord.type, caller: "", key: context.attributes.id)
                _ = try await database.once(record, fingerprint: Array(request.note.utf8), on: connection) {
                    try await connection.query("INSERT INTO received (note) VALUES (\(request.note))", logger: database.logger)
                    return []
                }
            }
            return Empty()
        }
        return try WorkerRuntime(
            registry: registry, configuration: WorkerConfiguration(endpoint: endpoint, workers: 4, heartbeat: BusHarness.fastHeartbeat),
            logger: Logger(label: "sink"))
    }

    private func count(_ database: Database, _ sql: String) async throws -> Int {
        try await database.transaction { connection in
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).decode(Int.self).reduce(0, +)
        }
    }

    private static var fast: OutboxConfiguration {
        var configuration = OutboxConfiguration()
        configuration.pollInterval = .milliseconds(50)
        configuration.callTimeout = .milliseconds(300)
        // The first relay is cancelled mid-round, as a crash would stop it: its claimed rows come back
        // when the lease runs out.
        configuration.lease = .seconds(1)
        configuration.retry = RetryPolicy(first: .milliseconds(100), maximum: .milliseconds(400))
        return configuration
    }

    @Test func deliveredRowsAreDeletedAfterTheRetentionAndUndeliveredOnesNever() async throws {
        let sender = try TestDatabase.make()
        try await BusHarness.with([sender]) {
            try await sender.migrate(MigrationTests.migrations)
            try await sender.transaction { connection in
                try await connection.query(
                    """
                    INSERT INTO outbox (id, service, type, data, created_at, delivered_at) VALUES
                        ('old', 'sink', 't', '', now() - interval '9 days', now() - interval '8 days'),
                        ('recent', 'sink', 't', '', now() - interval '2 hours', now() - interval '1 hour'),
                        ('stuck', 'sink', 't', '', now() - interval '30 days', NULL)
                    """,
                    logger: sender.logger)
            }
            #expect(await OutboxRelay.purgeJob(database: sender).round() == 1)
            let left = try await sender.transaction { connection in
                try await connection.query("SELECT id FROM outbox ORDER BY id", logger: sender.logger).decode(String.self).reduce(into: []) { $0.append($1) }
            }
            #expect(left == ["recent", "stuck"], "a row not yet delivered stays, however old")
        }
    }

    /// An erased account's requests still in the outbox (a return on its way to pdf-email) go with
    /// it; delivered rows and other accounts' stay.
    @Test func anErasedAccountsUndeliveredRequestsAreDropped() async throws {
        let sender = try TestDatabase.make()
        try await BusHarness.with([sender]) {
            try await sender.migrate(MigrationTests.migrations)
            let erased = UUID(), other = UUID()
            try await sender.transaction { connection in
                for (note, account) in [("erased-1", erased), ("erased-2", erased), ("other", other)] {
                    try await sender.enqueue(SinkRecord.self, .init(note: note), on: connection, account: account)
                }
                try await sender.enqueue(SinkRecord.self, .init(note: "nobody's"), on: connection)
            }
            _ = try await sender.transaction { connection in
                try await connection.query("UPDATE outbox SET delivered_at = now() WHERE data = \(Data(#"{"note":"erased-2"}"#.utf8))", logger: sender.logger)
            }
            #expect(try await sender.transaction { try await sender.dropUndelivered(account: erased, on: $0) } == 1)
            #expect(try await count(sender, "SELECT count(*) FROM outbox") == 3, "the delivered row, the other account's and nobody's stay")
        }
    }

    /// A receiver that does not answer holds up only its own rows: a request to another service
    /// written meanwhile is delivered without waiting for that call's deadline.
    @Test func aSilentReceiverDoesNotHoldUpTheOthers() async throws {
        let sender = try TestDatabase.make(maximumConnections: 6)
        let sink = try TestDatabase.make(maximumConnections: 6)
        let broker = try BusHarness.broker()
        let client = try BusHarness.client(broker.endpoint)
        var configuration = Self.fast
        configuration.callTimeout = .seconds(20)
        configuration.lease = .seconds(30)
        let relay = OutboxRelay(database: sender, bus: client, configuration: configuration)
        try await BusHarness.with([sender, sink, broker, client]) {
            try await sender.migrate(MigrationTests.migrations)
            try await sink.migrate(MigrationTests.migrations)
            let sinkWorker = try receiver(sink, endpoint: broker.endpoint)
            try await BusHarness.with([relay, sinkWorker]) {
                #expect(await BusHarness.waitForService(SinkRecord.service, client: client))
                try await sender.transaction { connection in _ = try await sender.enqueue(Unserved.self, .init(note: "waits"), on: connection) }
                #expect(await eventually { try await count(sender, "SELECT count(*) FROM outbox WHERE attempts > 0") == 1 }, "the relay is calling")
                try await sender.transaction { connection in _ = try await sender.enqueue(SinkRecord.self, .init(note: "goes"), on: connection) }
                #expect(await eventually(timeout: .seconds(10)) { try await count(sink, "SELECT count(*) FROM received") == 1 },
                        "the second request waited for the first one's deadline")
            }
        }
    }

    @Test func deliveryOutlastsADownReceiverAndARestartedSenderAndIsDeduplicated() async throws {
        let clock = MovableClock()
        let sender = try TestDatabase.make(maximumConnections: 6, now: clock.now)
        let sink = try TestDatabase.make(maximumConnections: 6)
        let broker = try BusHarness.broker()
        let client = try BusHarness.client(broker.endpoint)
        struct Abort: Error {}
        try await BusHarness.with([sender, sink, broker, client]) {
            try await sender.migrate(MigrationTests.migrations)
            try await sink.migrate(MigrationTests.migrations)
            for index in 0..<20 {
                try await sender.transaction { connection in
                    _ = try await sender.enqueue(SinkRecord.self, .init(note: "note-\(index)"), on: connection)
                }
            }
            // Written in a transaction that rolls back: must never be sent.
            await #expect(throws: Abort.self) {
                try await sender.transaction { connection in
                    _ = try await sender.enqueue(SinkRecord.self, .init(note: "never"), on: connection)
                    throw Abort()
                }
            }

            // The receiver is down: the first relay tries, then stops (a sender restart).
            let firstRelay = OutboxRelay(database: sender, bus: client, configuration: Self.fast)
            let firstRun = Task { try await firstRelay.run() }
            #expect(await eventually { try await count(sender, "SELECT count(*) FROM outbox WHERE attempts > 0") > 0 })
            firstRun.cancel()
            _ = await firstRun.result
            #expect(try await count(sender, "SELECT count(*) FROM outbox WHERE delivered_at IS NULL") == 20)
            #expect(try await count(sender, "SELECT count(*) FROM outbox WHERE attempts > 0") > 0)

            // A copy of the payloads, to play a relay that died before recording a delivery below.
            _ = try await sender.transaction { connection in
                try await connection.query("CREATE TABLE outbox_payloads AS SELECT id, data FROM outbox", logger: sender.logger)
            }

            // A new relay, and the receiver comes up; the rows the first relay had claimed are due
            // again once their lease has run out.
            clock.advance(Self.fast.lease + .milliseconds(100))
            let secondRelay = OutboxRelay(database: sender, bus: client, configuration: Self.fast)
            let sinkWorker = try receiver(sink, endpoint: broker.endpoint)
            try await BusHarness.with([secondRelay, sinkWorker]) {
                #expect(await eventually(timeout: .seconds(20)) {
                    try await count(sender, "SELECT count(*) FROM outbox WHERE delivered_at IS NOT NULL") == 20
                })
                #expect(try await count(sink, "SELECT count(DISTINCT note) FROM received") == 20)
                #expect(try await count(sender, "SELECT count(*) FROM outbox WHERE octet_length(data) > 0") == 0, "a delivered row keeps no payload")

                // A relay that died after the call but before recording it (so the row still has its
                // payload) delivers again: the receiver recognises the envelope ids and records nothing twice.
                _ = try await sender.transaction { connection in
                    try await connection.query(
                        "UPDATE outbox SET delivered_at = NULL, next_attempt_at = now(), data = p.data FROM outbox_payloads p WHERE p.id = outbox.id",
                        logger: sender.logger)
                }
                let redelivered = await eventually(timeout: .seconds(20)) {
                    try await count(sender, "SELECT count(*) FROM outbox WHERE delivered_at IS NOT NULL") == 20
                }
                if !redelivered {
                    let states = try await sender.transaction { connection in
                        var lines: [String] = []
                        for try await (attempts, outcome, error) in try await connection.query(
                            "SELECT attempts, outcome, last_error FROM outbox", logger: sender.logger).decode((Int, String?, String?).self) {
                            lines.append("\(attempts) \(outcome ?? "-") \(error ?? "-")")
                        }
                        return lines
                    }
                    Issue.record("not redelivered: \(states)")
                }
            }
            #expect(try await count(sink, "SELECT count(*) FROM received") == 20)
            #expect(try await count(sink, "SELECT count(*) FROM received WHERE note = 'never'") == 0)
        }
    }
}
