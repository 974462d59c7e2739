import Contracts
import Foundation
import PostgresSupport
import RefundCalculatorContract
import ServiceKit
import ServiceSupport

extension ServiceDefinition {
    /// `refund-calculator`: Irish PAYE refund estimates, help text, saved scenarios and contact requests.
    public static let refundCalculator = ServiceDefinition(
        contract: RefundCalculator.self, schema: "refund_calculator", settings: Setting.refundCalculatorSettings, settingPrefixes: ["refund"],
        deployment: ServiceDeployment(about: "Irish PAYE refund estimates (CPU only), rules and help per tax year, saved scenarios, contact requests"),
        migrations: { try Migration.load(bundle: .module) }
    ) { environment in
        let configuration = try environment.settings.refundCalculatorConfiguration()
        let database = environment.requireDatabase()
        let estimates = EstimateHandlers(estimator: Estimator(rules: try RuleBook.bundled()), today: environment.clock.now)
        let scenarioStore = ScenarioPostgresRepository(database: database)
        let contactStore = ContactRequestPostgresRepository(database: database)
        let scenarios = ScenarioHandlers(database: database, scenarios: scenarioStore, estimates: estimates, configuration: configuration)
        let contacts = ContactHandlers(
            database: database, contacts: contactStore, estimates: estimates, configuration: configuration, now: environment.clock.now)
        let erasure = AccountErasureHandler(database: database, scenarios: scenarioStore, contacts: contactStore)

        var handlers = OperationHandlers(RefundCalculator.self, database: database)
        handlers.on(RefundCalculator.Estimate.Make.self, estimates.estimate)
        handlers.on(RefundCalculator.Rules.Version.self, estimates.rulesVersion)
        handlers.on(RefundCalculator.Help.Get.self, estimates.help)
        handlers.once(RefundCalculator.Scenario.Save.self, prepare: scenarios.prepareSave, apply: scenarios.save)
        handlers.on(RefundCalculator.Scenario.List.self, scenarios.list)
        handlers.on(RefundCalculator.Scenario.Get.self, scenarios.get)
        handlers.on(RefundCalculator.Scenario.Update.self, scenarios.update)
        handlers.on(RefundCalculator.Scenario.Delete.self, scenarios.delete)
        handlers.once(RefundCalculator.ContactRequest.Create.self, prepare: contacts.prepare, apply: contacts.create)
        handlers.on(RefundCalculator.Account.Erase.self, erasure.erase)
        let retention = configuration.contactRetention
        let prune = PeriodicJob("contact-requests.prune", every: .seconds(600), database: database) { connection in
            try await contactStore.prune(olderThan: retention, on: connection)
        }
        return ServiceParts(handlers: handlers, jobs: [prune])
    }
}
