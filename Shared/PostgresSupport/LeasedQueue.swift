import Envelope
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// When a durable queue tries a failed item again: exponential from `first`, doubled per attempt,
/// capped at `maximum`, with jitter over the upper half so that items failing together spread out.
public struct RetryPolicy: Sendable, Equatable {
    public var first: Duration
    public var maximum: Duration

    public init(first: Duration, maximum: Duration) {
        precondition(first > .zero && maximum >= first, "a retry policy needs 0 < first <= maximum")
        self.first = first
        self.maximum = maximum
    }

    /// The wait after the `attempt`-th failed attempt (1 for the first).
    public func delay(afterAttempt attempt: Int) -> Duration {
        let base = first.milliseconds << min(max(attempt - 1, 0), 20)
        let capped = min(base, maximum.milliseconds)
        return .milliseconds(Int64.random(in: (capped / 2)...max(capped / 2, capped)))
    }
}

/// A table of work items that consumers in any number of processes share: each round claims due rows
/// with `FOR UPDATE SKIP LOCKED` and leases them by moving `next_attempt_at` past the lease, so no two
/// consumers hold one row and no transaction stays open across the network call that follows. A
/// consumer that dies mid-item leaves it to be claimed again when the lease runs out.
///
/// The table needs `next_attempt_at timestamptz` and `attempts integer`; each claim adds one attempt,
/// which a consumer passes back when it records the outcome, so a late consumer whose lease ran out
/// cannot overwrite a newer attempt.
public struct LeasedQueue: Sendable {
    /// The table, in the database's schema.
    public let table: String
    /// SQL condition of rows still to do (`delivered_at IS NULL`); `clock.now` in it is the
    /// service's clock (`h.until > clock.now`), never PostgreSQL's `now()`.
    public let pending: String
    public var lease: Duration
    public var batchSize: Int

    public init(table: String, pending: String, lease: Duration, batchSize: Int) {
        precondition(Database.isIdentifier(table), "a queue table is a plain identifier")
        self.table = table
        self.pending = pending
        self.lease = lease
        self.batchSize = batchSize
    }

    /// Claims up to `batchSize` due rows and returns `columns` of each, in due order.
    public func claim(_ columns: String, in database: Database) async throws -> [PostgresRow] {
        let now = database.now(), leaseEnd = now.adding(lease)
        return try await database.transaction { connection in
            let rows = try await connection.query(
                """
                UPDATE \(unescaped: table) SET next_attempt_at = \(leaseEnd), attempts = attempts + 1
                WHERE id IN (
                    SELECT id FROM \(unescaped: table), (SELECT \(now)::timestamptz AS now) AS clock
                    WHERE \(unescaped: pending) AND next_attempt_at <= clock.now
                    ORDER BY next_attempt_at LIMIT \(batchSize) FOR UPDATE OF \(unescaped: table) SKIP LOCKED)
                RETURNING \(unescaped: columns)
                """,
                logger: database.logger)
            return try await rows.collect()
        }
    }

    /// Runs `round` until cancelled or shut down, waiting after a round that found nothing (or
    /// failed) `interval`, or less when `wakeUp` is signalled (a producer committed new work: the
    /// interval is then only for work due later and for a notice that was lost). A round under way
    /// when graceful shutdown begins finishes first. With `gauges`, that refresh (the backlog's
    /// gauges, say) runs before a round at most every `gaugeInterval`.
    public static func poll(
        every interval: Duration, wakeUp: WakeUp? = nil, logger: Logger, gauges: (interval: Duration, refresh: () async throws -> Void)? = nil,
        round: () async throws -> Int
    ) async {
        var gaugesDue = ContinuousClock.now
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            let handled: Int
            do {
                if let gauges, ContinuousClock.now >= gaugesDue {
                    gaugesDue = .now + gauges.interval
                    try await gauges.refresh()
                }
                handled = try await round()
            } catch {
                logger.error("queue round failed", metadata: ["error": "\(String(reflecting: error))"])
                handled = 0
            }
            if handled == 0 {
                if let wakeUp {
                    await cancelWhenGracefulShutdown { await wakeUp.wait(upTo: interval) }
                } else {
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
                }
            }
        }
    }

    /// Records a claimed item's outcome with `record` (false when the item's lease had run out and
    /// another consumer holds it). Logs when it was not recorded; true when it was.
    public static func recorded(logger: Logger, metadata: Logger.Metadata, _ record: () async throws -> Bool) async -> Bool {
        do {
            guard try await record() else {
                logger.warning("a claimed item's lease ran out before its outcome was recorded", metadata: metadata)
                return false
            }
            return true
        } catch {
            // The lease runs out and the item is tried again.
            logger.error("could not record a claimed item's outcome", metadata: metadata.merging(["error": "\(String(reflecting: error))"]) { $1 })
            return false
        }
    }
}
