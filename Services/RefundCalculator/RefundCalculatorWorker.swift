import Bus
import RefundCalculatorContract
import Contracts
import Envelope
import Foundation
import Logging
import PostgresSupport
import ServiceLifecycle
import ServiceSupport

/// The refund-calculator service's operations and running parts, as the `refund-calculator`
/// executable and `melon` run them.
public struct RefundCalculatorWorker: Sendable {
    /// The database schema the service owns.
    public static let schema = "refund_calculator"

    public let database: Database
    public let runtime: WorkerRuntime
    /// Delivers the contact-request mails the handlers queue in the outbox.
    public let relay: OutboxRelay
    let housekeeping: RefundHousekeeping

    public static func migrations() throws -> [Migration] {
        try Migration.load(from: Bundle.module.resourceURL!.appendingPathComponent("Migrations"))
    }

    /// The operations of `refund-calculator`, on `database`, with the window of tax years decided by `today`.
    public static func registry(
        configuration: RefundCalculatorConfiguration, database: Database, rules: RuleBook, today: @escaping @Sendable () -> Date = { Date() }
    ) -> OperationRegistry {
        let estimates = EstimateHandlers(estimator: Estimator(rules: rules), today: today)
        let scenarioStore = ScenarioPostgresRepository(database: database)
        let contactStore = ContactRequestPostgresRepository(database: database)
        let scenarios = ScenarioHandlers(database: database, scenarios: scenarioStore, estimates: estimates, configuration: configuration)
        let contacts = ContactHandlers(database: database, contacts: contactStore, estimates: estimates, configuration: configuration)
        let erasure = AccountErasureHandler(database: database, scenarios: scenarioStore, contacts: contactStore)
        var registry = OperationRegistry(service: RefundCalculator.name)
        registry.register(RefundCalculator.Estimate.Make.self, handler: estimates.estimate)
        registry.register(RefundCalculator.Rules.Version.self, handler: estimates.rulesVersion)
        registry.register(RefundCalculator.Help.Get.self, handler: estimates.help)
        registry.register(RefundCalculator.Scenario.Save.self, handler: scenarios.save)
        registry.register(RefundCalculator.Scenario.List.self, handler: scenarios.list)
        registry.register(RefundCalculator.Scenario.Get.self, handler: scenarios.get)
        registry.register(RefundCalculator.Scenario.Update.self, handler: scenarios.update)
        registry.register(RefundCalculator.Scenario.Delete.self, handler: scenarios.delete)
        registry.register(RefundCalculator.ContactRequest.Create.self, handler: contacts.create)
        registry.register(RefundCalculator.Account.Erase.self, handler: erasure.erase)
        return registry
    }

    public init(configuration: RefundCalculatorConfiguration, worker: WorkerConfiguration, database: Database, bus: BusClient, logger: Logger) throws {
        self.database = database
        runtime = try WorkerRuntime(
            registry: Self.registry(configuration: configuration, database: database, rules: try RuleBook.bundled()),
            configuration: worker, bus: bus, logger: logger)
        relay = OutboxRelay(database: database, bus: bus)
        housekeeping = RefundHousekeeping(
            database: database, contacts: ContactRequestPostgresRepository(database: database), retention: configuration.contactRetention)
    }

    /// In ServiceGroup order, after the bus client: the pool, then (once migrated) the worker, the
    /// relay and the housekeeping.
    public func services() throws -> [any Service] {
        [database, RunAfterMigrations(database: database, migrations: try Self.migrations(), services: [runtime, relay, housekeeping])]
    }

    /// What /readyz checks.
    public var readiness: [(name: String, check: HealthServer.Check)] {
        let runtime = runtime, database = database
        return [("broker", { runtime.health.isConnected }), ("database", { await database.isReachable() })]
    }
}

/// Every few minutes: deletes contact requests past their retention. Runs in every instance; the
/// delete is idempotent.
struct RefundHousekeeping: Service {
    let database: Database
    let contacts: ContactRequestPostgresRepository
    let retention: Duration
    var interval: Duration = .seconds(600)

    func run() async throws {
        await LeasedQueue.poll(every: interval, logger: database.logger) {
            try await database.transaction { try await contacts.prune(olderThan: retention, on: $0) }
            return 0
        }
    }
}
