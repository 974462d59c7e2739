import Logging
import ServiceLifecycle

/// A service's start: runs its database's pool, applies its migrations (waiting for the database
/// while it is not reachable), then runs the parts that need the schema, such as its worker runtime
/// and queue consumers, until shutdown. The pool stops only once every part has ended: PostgresNIO
/// (1.33) leaves a query waiting forever when the pool closes its connection under it, so a pool
/// cancelled beside its users (a ServiceGroup cancelled, a test's teardown) could hang their end.
public struct RunAfterMigrations: Service {
    public let database: Database
    public let migrations: [Migration]
    public let services: [any Service]
    /// How long to wait between attempts while the database is not reachable.
    public var retryInterval: Duration = .seconds(2)

    public init(database: Database, migrations: [Migration], services: [any Service]) {
        self.database = database
        self.migrations = migrations
        self.services = services
    }

    public func run() async throws {
        // Detached: neither the caller's cancellation nor its graceful shutdown reaches the pool; its
        // users' end does.
        let pool = Task.detached { [database] in try await database.run() }
        do {
            try await migrateAndRun()
        } catch {
            pool.cancel()
            try? await pool.value
            throw error
        }
        pool.cancel()
        try await pool.value
    }

    private func migrateAndRun() async throws {
        while true {
            do {
                try await database.migrate(migrations)
                break
            } catch {
                database.logger.error("migrations failed; trying again", metadata: [
                    "schema": "\(database.schema)", "error": "\(String(reflecting: error))",
                ])
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: retryInterval) }
                if Task.isShuttingDownGracefully { return }
            }
        }
        // Child tasks inherit the graceful-shutdown signal, so each part drains as it would on its own.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for service in services { group.addTask { try await service.run() } }
            try await group.waitForAll()
        }
    }
}
