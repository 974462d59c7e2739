import Bus
import Logging
import PostgresSupport
import ServiceLifecycle
import ServiceSupport
import ZeroMQ

/// A service assembled from its definition, as a process runs it: its bus client, its database, the
/// worker runtime serving its operations, and once the schema is migrated, its outbox relay, its
/// periodic jobs and its own long-running parts.
public struct RunningService: Sendable {
    public let definition: ServiceDefinition
    public let runtime: WorkerRuntime
    public let database: Database?
    /// In ServiceGroup order.
    public let services: [any Service]

    /// - Parameters:
    ///   - maximumConnections: the database pool's size.
    ///   - clock: today, for the service's rules (tests pin it).
    ///   - context: the libzmq context to share with the other parts of the process (needed for
    ///     inproc endpoints); nil: one of its own.
    public init(
        _ definition: ServiceDefinition, settings: ProcessSettings, logger: Logger, maximumConnections: Int = 8, clock: ServiceClock = .system,
        context: ZMQContext? = nil
    ) throws {
        var busConfiguration = try settings.clientConfiguration()
        busConfiguration.calls = definition.calls
        let bus = try BusClient(configuration: busConfiguration, context: context, logger: logger)
        let database = try definition.schema.map { schema in
            try Database(
                url: DatabaseURL(settings.databaseURL(service: definition.name)), schema: schema, maximumConnections: maximumConnections, logger: logger, now: clock.now)
        }
        let events = try definition.publishesEvents ? settings.eventPublisher(context: context, logger: logger) : nil
        let parts = try definition.make(ServiceEnvironment(settings: settings, database: database, bus: bus, events: events, logger: logger, clock: clock))
        runtime = try WorkerRuntime(
            registry: parts.handlers.finished(), configuration: settings.workerConfiguration(), bus: bus, context: context, logger: logger)
        self.definition = definition
        self.database = database
        let transport: [any Service] = [bus] + [events].compactMap { $0 }
        guard let database else {
            services = transport + [runtime] + parts.services
            return
        }
        let retention = try settings.milliseconds(.idempotencyRetention)
        let expiry = PeriodicJob("idempotency.expiry", every: .seconds(600), database: database) { connection in
            try await database.expireIdempotency(olderThan: retention, on: connection)
        }
        let limits = PeriodicJob("rate-limits.expiry", every: .seconds(600), database: database) { connection in
            try await database.expireRateLimits(at: clock.now(), on: connection) + database.expireBackoffs(on: connection)
        }
        let migrated: [any Service] = [runtime, OutboxRelay(database: database, bus: bus), OutboxRelay.purgeJob(database: database), expiry, limits]
            + parts.jobs + parts.services + [database.noticeListener]
        services = transport + [RunAfterMigrations(database: database, migrations: try definition.migrations(), services: migrated)]
    }

    /// What /readyz checks: the broker on the worker's connections, and the database.
    public var readiness: [(name: String, check: HealthServer.Check)] {
        let runtime = runtime
        var checks: [(name: String, check: HealthServer.Check)] = [("broker", { runtime.health.isConnected })]
        if let database { checks.append(("database", { await database.isReachable() })) }
        return checks
    }
}

/// The start of a service's executable.
public enum ServiceHost {
    /// Reads the definition's settings (answering `--help`), assembles the service and runs it with
    /// its probe endpoints until SIGTERM: the whole `main` of a service process.
    public static func main(_ definition: ServiceDefinition) async throws {
        let (settings, logger) = ProcessBootstrap.start(
            process: definition.name, summary: definition.summary, settings: definition.processSettings + [.healthPort, .healthHost])
        let service = ProcessBootstrap.require({ try RunningService(definition, settings: settings, logger: logger) }, process: definition.name)
        try await ProcessBootstrap.run(service.services, readiness: service.readiness, settings: settings, logger: logger)
    }
}
