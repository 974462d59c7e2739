import Envelope
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// A service's database: a pooled PostgresNIO client and the one schema the service owns.
///
/// The pool lives in `run()`, which must outlast every query: a service's `RunAfterMigrations` runs
/// it around the service's parts; a test runs it beside its body.
public final class Database: Service {
    public let client: PostgresClient
    /// The service's schema; every table it owns lives here.
    public let schema: String
    public let logger: Logger
    /// The service's clock: what SQL binds as now (expiries, windows, leases), never PostgreSQL's
    /// `now()`, so a test moves time instead of sleeping. The system's clock unless the service's
    /// environment gives another.
    public let now: @Sendable () -> Date
    /// What to do with each notice of a channel, registered before the process runs (`onNotice`).
    let noticeHandlers = Mutex<[String: [@Sendable (String) async -> Void]]>([:])

    public init(
        url: DatabaseURL, schema: String, maximumConnections: Int = 20, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        guard Self.isIdentifier(schema) else {
            throw DatabaseURL.Invalid(description: "schema names are lowercase letters, digits and _; got \(schema)")
        }
        var configuration = url.configuration
        configuration.options.maximumConnections = maximumConnections
        // Every session starts in the service's schema, so a transaction needs no SET of its own: one
        // round trip fewer per transaction (of 4 for a one-row read, 6 for an idempotent write).
        configuration.options.additionalStartupParameters.append(("search_path", schema))
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.schema = schema
        self.logger = logger
        self.now = now
    }

    public func run() async throws {
        await client.run()
    }

    /// `duration` before now on the service's clock: the start of a window, the edge of a retention.
    public func ago(_ duration: Duration) -> Date {
        now().adding(.zero - duration)
    }

    /// `duration` after now on the service's clock: an expiry, a lease's end, a retry's time.
    public func later(_ duration: Duration) -> Date {
        now().adding(duration)
    }

    /// Runs `body` in one transaction (in the service's schema, as every session of the pool is);
    /// commits when it returns, rolls back when it throws.
    /// The closure's own error comes out unchanged (an `OperationError` stays one); only failures of
    /// BEGIN, COMMIT or ROLLBACK surface as PostgresNIO's `PostgresTransactionError`.
    public func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch let error as PostgresTransactionError where error.beginError == nil && error.rollbackError == nil {
            throw error.closureError ?? error.commitError ?? error
        }
    }

    /// A lowercase SQL identifier that needs no quoting.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, (0x61...0x7A).contains(first) || first == 0x5F, name.utf8.count <= 63 else { return false }
        return name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
    }
}

extension Database {
    /// Whether a `SELECT 1` succeeds within `timeout`, for readiness probes.
    public func isReachable(timeout: Duration = .seconds(2)) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                (try? await self.client.query("SELECT 1", logger: self.logger)) != nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
