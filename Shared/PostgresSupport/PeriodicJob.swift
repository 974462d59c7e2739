import Bus
import Foundation
import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle

/// Work done every so often (housekeeping, purges, expiries): one round every `interval`, give or
/// take `jitter`, in a transaction that holds an advisory lock named for the job, so with several
/// instances one of them does each round and the others skip it. The body returns the rows it touched.
///
/// Metrics per job: `melon_job_runs_total{job,outcome}` (`done`, `skipped`, `failed`),
/// `melon_job_rows_total{job}`, `melon_job_duration_seconds{job}` and `melon_job_last_run_timestamp_seconds{job}`.
public struct PeriodicJob: Service {
    /// `<schema>.<name>`, unique in the database: the lock and the metrics' `job` label.
    public let name: String
    public let interval: Duration
    public let jitter: Duration
    let database: Database
    let body: @Sendable (PostgresConnection) async throws -> Int

    public init(
        _ name: String, every interval: Duration, jitter: Duration? = nil, database: Database,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Int
    ) {
        self.name = "\(database.schema).\(name)"
        self.interval = interval
        self.jitter = jitter ?? interval / 10
        self.database = database
        self.body = body
    }

    /// A round at start, then one every `interval` ± `jitter` until shutdown; a round under way when
    /// shutdown begins finishes first.
    public func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            _ = await round()
            let spread = jitter.milliseconds
            let wait = interval + .milliseconds(spread > 0 ? Int64.random(in: -spread...spread) : 0)
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
        }
    }

    /// One round: the rows touched, or nil when another instance held the job or the round failed
    /// (logged).
    @discardableResult
    public func round() async -> Int? {
        let started = ContinuousClock.now
        let dimensions = [("job", name)]
        do {
            let rows: Int? = try await database.transaction { connection in
                let lock = try await connection.query("SELECT pg_try_advisory_xact_lock(hashtext(\("melon.job." + name)))", logger: database.logger)
                var held = false
                for try await locked in lock.decode(Bool.self) { held = locked }
                guard held else { return nil }
                return try await body(connection)
            }
            Counter(label: "melon_job_runs_total", dimensions: dimensions + [("outcome", rows == nil ? "skipped" : "done")]).increment()
            guard let rows else { return nil }
            Counter(label: "melon_job_rows_total", dimensions: dimensions).increment(by: rows)
            Timer(label: "melon_job_duration_seconds", dimensions: dimensions).recordInterval(since: started)
            Gauge(label: "melon_job_last_run_timestamp_seconds", dimensions: dimensions).record(Date().timeIntervalSince1970)
            return rows
        } catch {
            Counter(label: "melon_job_runs_total", dimensions: dimensions + [("outcome", "failed")]).increment()
            database.logger.error("periodic job failed", metadata: ["job": "\(name)", "error": "\(String(reflecting: error))"])
            return nil
        }
    }
}
