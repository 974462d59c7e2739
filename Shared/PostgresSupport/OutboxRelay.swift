import Bus
import Envelope
import Foundation
import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Settings of an `OutboxRelay`.
public struct OutboxConfiguration: Sendable {
    /// Rows claimed per round, and the most delivered at once.
    public var batchSize = 32
    /// How long to wait before looking again when nothing was due, unless a commit wakes the relay
    /// first (rows due later, a retry, a lost notice).
    public var pollInterval: Duration = .seconds(1)
    /// A claimed row is not claimed again for this long (a relay that dies mid-delivery is replaced).
    public var lease: Duration = .seconds(30)
    /// The deadline of one delivery attempt.
    public var callTimeout: Duration = .seconds(10)
    /// When a row is tried again after a failed attempt.
    public var retry = RetryPolicy(first: .seconds(1), maximum: .seconds(300))
    /// Delivered rows are kept this long (what was sent where, when and with what outcome), then
    /// deleted by `purgeJob`. Their payload (addresses, codes, a return's PDF) goes at delivery.
    public var retention: Duration = .seconds(7 * 86_400)

    public init() {}
}

/// Delivers a service's outbox rows as bus requests until each is acknowledged.
///
/// Each round claims due rows with `FOR UPDATE SKIP LOCKED` and a lease (so relays in several
/// instances share the work and never hold a transaction across a network call), calls the receiver
/// with the row's id as the envelope id, and records the outcome. `ok` and definite refusals
/// (`invalid`, `not_found`, `conflict`, `forbidden`, `gone`, `too_large`, `unauthenticated`) end a row;
/// anything else (`unavailable`, `deadline_exceeded`, `internal`, `rate_limited`) is retried later.
/// A row that ends keeps its envelope and outcome, not its payload.
public final class OutboxRelay: Service {
    private let database: Database
    private let bus: BusClient
    private let configuration: OutboxConfiguration
    private let wakeUp: WakeUp
    private let delivered = Counter(label: "melon_outbox_delivered_total")
    private let retried = Counter(label: "melon_outbox_retries_total")
    /// Deliveries under way.
    private let inFlight = Atomic<Int>(0)

    public init(database: Database, bus: BusClient, configuration: OutboxConfiguration = OutboxConfiguration()) {
        precondition(configuration.lease > configuration.callTimeout, "an outbox lease must outlast a delivery attempt")
        self.database = database
        self.bus = bus
        self.configuration = configuration
        wakeUp = database.wakeUp(Database.outboxChannel)
    }

    /// Delivers until cancelled or shut down; on graceful shutdown the deliveries under way finish
    /// first. Each row is delivered on its own, up to `batchSize` at once: a receiver that does not
    /// answer holds up its own rows until their deadline, not the rows claimed after them.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            await LeasedQueue.poll(every: configuration.pollInterval, wakeUp: wakeUp, logger: database.logger) {
                let room = configuration.batchSize - inFlight.load(ordering: .relaxed)
                guard room > 0 else { return 0 }
                let rows = try await claim(limit: room)
                for row in rows {
                    inFlight.add(1, ordering: .relaxed)
                    group.addTask {
                        await self.deliver(row)
                        // Room again after every slot was taken: claim without waiting for the poll interval.
                        if self.inFlight.subtract(1, ordering: .relaxed).oldValue == self.configuration.batchSize { self.wakeUp.signal() }
                    }
                }
                return rows.count
            }
        }
    }

    /// One round of `run`'s work, for tests that drive the relay themselves: claims the rows due now
    /// and delivers each; how many it claimed.
    public func deliverDue() async throws -> Int {
        let rows = try await claim(limit: configuration.batchSize)
        await withDiscardingTaskGroup { group in
            for row in rows { group.addTask { await self.deliver(row) } }
        }
        return rows.count
    }

    /// Every ten minutes, deletes delivered rows older than the retention.
    public static func purgeJob(database: Database, configuration: OutboxConfiguration = OutboxConfiguration()) -> PeriodicJob {
        PeriodicJob("outbox.purge", every: .seconds(600), database: database) { connection in
            try await connection.query(
                "DELETE FROM outbox WHERE delivered_at < \(database.ago(configuration.retention)) RETURNING 1", logger: database.logger
            ).collect().count
        }
    }

    private struct Row: Sendable {
        let id: String
        let service: String
        let type: String
        let data: Data
        let idempotencyKey: String?
        let attempts: Int
    }

    /// Claims up to `limit` due rows.
    private func claim(limit: Int) async throws -> [Row] {
        let queue = LeasedQueue(table: "outbox", pending: "delivered_at IS NULL", lease: configuration.lease, batchSize: limit)
        return try await queue.claim("id, service, type, data, idempotency_key, attempts", in: database).map { row in
            let (id, service, type, data, key, attempts) = try row.decode((String, String, String, Data, String?, Int).self)
            return Row(id: id, service: service, type: type, data: data, idempotencyKey: key, attempts: attempts)
        }
    }

    private func deliver(_ row: Row) async {
        var options = CallOptions(timeout: configuration.callTimeout, idempotencyKey: row.idempotencyKey)
        options.id = row.id
        let outcome: Outcome
        let detail: String
        do {
            switch try await bus.call(service: row.service, type: row.type, data: [UInt8](row.data), options: options) {
            case .success:
                outcome = .ok
                detail = "ok"
            case .failure(let error):
                outcome = .error(error.code)
                detail = error.description
            }
        } catch {
            outcome = .error(error.code)
            detail = error.description
        }
        // Each update names the attempt it records, so a relay whose lease ran out changes nothing.
        do {
            if Self.isFinal(outcome) {
                try await database.transaction { connection in
                    _ = try await connection.query(
                        """
                        UPDATE outbox SET delivered_at = \(database.now()), outcome = \(outcome.description), data = ''::bytea
                        WHERE id = \(row.id) AND attempts = \(row.attempts)
                        """,
                        logger: database.logger)
                }
                delivered.increment()
                if outcome != .ok {
                    database.logger.warning("outbox row refused by its receiver", metadata: ["id": "\(row.id)", "type": "\(row.type)", "outcome": "\(outcome)"])
                }
            } else {
                let due = database.later(configuration.retry.delay(afterAttempt: row.attempts))
                try await database.transaction { connection in
                    _ = try await connection.query(
                        """
                        UPDATE outbox SET next_attempt_at = \(due), last_error = \(detail)
                        WHERE id = \(row.id) AND attempts = \(row.attempts)
                        """,
                        logger: database.logger)
                }
                retried.increment()
            }
        } catch {
            // The lease runs out and the row is tried again; the receiver deduplicates.
            database.logger.error("outbox could not record a delivery", metadata: ["id": "\(row.id)", "error": "\(String(reflecting: error))"])
        }
    }

    static func isFinal(_ outcome: Outcome) -> Bool {
        switch outcome {
        case .ok: true
        case .error(let code):
            switch code {
            case .invalid, .notFound, .conflict, .forbidden, .gone, .tooLarge, .unauthenticated: true
            case .unavailable, .deadlineExceeded, .internal, .rateLimited: false
            }
        }
    }
}
