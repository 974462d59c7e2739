import Bus
import Contracts
import Foundation
import PostgresSupport
import ServiceSupport

/// One service, declared once: its contract (bus name and operations), its settings, its schema and
/// migrations, and how to build its handlers, periodic jobs and long-running parts from an
/// environment. Its executable, `melon`, the contract tests and the integration harness all build
/// the service from this.
public struct ServiceDefinition: Sendable {
    public let contract: any ServiceContract.Type
    /// The database schema the service owns; nil for a service without a database.
    public let schema: String?
    /// The settings of the service itself (the kit adds the bus, probe and database settings).
    public let settings: [Setting]
    /// The service's migrations (resources of its module).
    public let migrations: @Sendable () throws -> [Migration]
    /// Whether the service publishes live events (its environment then has an `events` publisher).
    public let publishesEvents: Bool
    /// The operation types the service calls: its contract's `calls`, plus those it finds at run
    /// time (auth's account erasures, from the catalog). Its bus client calls nothing else.
    public let calls: Set<String>
    /// Builds the service's parts; throws for settings that are not valid.
    public let make: @Sendable (ServiceEnvironment) throws -> ServiceParts

    public init(
        contract: any ServiceContract.Type, schema: String?, settings: [Setting], publishesEvents: Bool = false,
        alsoCalls: [any OperationDeclaration.Type] = [],
        migrations: @escaping @Sendable () throws -> [Migration] = { [] }, make: @escaping @Sendable (ServiceEnvironment) throws -> ServiceParts
    ) {
        self.contract = contract
        calls = Set((contract.calls + alsoCalls).map { $0.type })
        self.schema = schema
        self.settings = settings
        self.publishesEvents = publishesEvents
        self.migrations = migrations
        self.make = make
    }

    /// The bus name.
    public var name: String { contract.name }
    /// One line for `--help`: the contract's summary.
    public var summary: String { contract.summary }

    /// Every setting a process of this service reads, besides the log settings: the bus and probe
    /// settings, the live-event proxy's (when it publishes), the database's (when it has one) and its own.
    public var processSettings: [Setting] {
        var all: [Setting] = [.brokerEndpoint, .workers, .workerConnections, .heartbeatInterval, .heartbeatLiveness, .gracePeriod, .busMaxMessageBytes]
            + Setting.busCurveSettings
        if publishesEvents { all.append(.eventsPublishEndpoint) }
        if schema != nil { all += [.databaseURL, .databaseURL(service: name), .idempotencyRetention] }
        return all + settings
    }
}

extension Migration {
    /// The migrations in the `Migrations` folder of `bundle` (a service module's resources).
    public static func load(bundle: Bundle) throws -> [Migration] {
        try load(from: bundle.resourceURL!.appendingPathComponent("Migrations"))
    }
}
