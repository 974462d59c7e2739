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
    /// The first words of its settings' keys (`tax.form` for `tax.form.key`): by default its name
    /// (`household` for `household.invites.per.day`). No two services share one, so `melon`, which
    /// reads every service's settings at once, never gives one service's value to another.
    public let settingPrefixes: [String]
    /// The service's migrations (resources of its module).
    public let migrations: @Sendable () throws -> [Migration]
    /// Its deployment: a line for operators, writable folders, how far it scales.
    public let deployment: ServiceDeployment
    /// The operation types the service calls: its contract's `calls`, plus those it finds at run
    /// time (auth's account erasures, from the catalog). Its bus client calls nothing else.
    public let calls: Set<String>
    /// Builds the service's parts; throws for settings that are not valid.
    public let make: @Sendable (ServiceEnvironment) throws -> ServiceParts

    public init(
        contract: any ServiceContract.Type, schema: String?, settings: [Setting], settingPrefixes: [String]? = nil, deployment: ServiceDeployment,
        alsoCalls: [any OperationDeclaration.Type] = [],
        migrations: @escaping @Sendable () throws -> [Migration] = { [] }, make: @escaping @Sendable (ServiceEnvironment) throws -> ServiceParts
    ) {
        self.contract = contract
        calls = Set((contract.calls + alsoCalls).map { $0.type })
        self.schema = schema
        self.settings = settings
        self.settingPrefixes = settingPrefixes ?? [contract.name.replacingOccurrences(of: "-", with: ".")]
        self.deployment = deployment
        self.migrations = migrations
        self.make = make
    }

    /// The bus name.
    public var name: String { contract.name }
    /// Whether the service publishes live events (its environment then has an `events` publisher).
    public var publishesEvents: Bool { contract.publishesEvents }
    /// Its folder under Services/ and the prefix of its targets: `RefundCalculator` for `refund-calculator`.
    public var folder: String {
        name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// The environment run.sh and the test stacks give the service besides the bus and the database:
    /// a value for each required setting (a new key for each random one).
    public func localEnvironment() -> [String: String] {
        Dictionary(uniqueKeysWithValues: settings.compactMap { setting in setting.localValue.map { (setting.environmentName, $0) } })
    }
    /// One line for `--help`: the contract's summary.
    public var summary: String { contract.summary }

    /// Every setting a process of this service reads, besides the log settings: the bus and probe
    /// settings, the live-event proxy's (when it publishes), the database's (when it has one) and its own.
    public var processSettings: [Setting] {
        var all: [Setting] = [.brokerEndpoint, .brokerEndpoints, .workers, .workerConnections, .heartbeatInterval, .heartbeatLiveness, .gracePeriod, .busMaxMessageBytes]
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
