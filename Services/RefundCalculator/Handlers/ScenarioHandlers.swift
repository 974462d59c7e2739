import Bus
import RefundCalculatorContract
import Contracts
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

/// `refund-calculator.scenario.*`: a signed-in user's saved scenarios. Every lookup is by owner
/// and id, so another account's scenario is `not_found`, never shown.
struct ScenarioHandlers: Sendable {
    let database: Database
    let scenarios: ScenarioPostgresRepository
    let estimates: EstimateHandlers
    let configuration: RefundCalculatorConfiguration

    /// Outside the transaction: the caller, and the name and answers checked.
    @Sendable
    func prepareSave(_ request: RefundCalculator.Scenario.Save.Request, _ context: RequestContext) async throws
        -> (account: UUID, name: String, scenario: RefundCalculator.Scenario)
    {
        (try Self.caller(context), try check(name: request.name, scenario: request.scenario), request.scenario)
    }

    /// In the transaction that records the reply: saved, within the account's limit.
    @Sendable
    func save(_ checked: (account: UUID, name: String, scenario: RefundCalculator.Scenario), _ context: RequestContext,
              on connection: PostgresConnection) async throws -> RefundCalculator.SavedScenario {
        let count = try await scenarios.lockAndCount(account: checked.account, on: connection)
        guard count < configuration.scenariosPerAccount else {
            throw OperationError(.conflict, "an account keeps at most \(configuration.scenariosPerAccount) scenarios; delete one to save another")
        }
        let row = try await scenarios.insert(id: UUID(), account: checked.account, name: checked.name, scenario: checked.scenario, on: connection)
        return withEstimate(row.saved)
    }

    @Sendable
    func list(_ request: RefundCalculator.Scenario.List.Request, _ context: RequestContext) async throws -> RefundCalculator.Scenario.List.Response {
        let account = try Self.caller(context)
        let limit = try request.checked()
        let rows = try await database.transaction { connection in
            try await scenarios.list(account: account, before: request.after, limit: limit + 1, on: connection)
        }
        let page = rows.prefix(limit)
        return .init(scenarios: page.map(\.saved), nextAfter: rows.count > limit ? page.last?.seq : nil)
    }

    @Sendable
    func get(_ request: RefundCalculator.Scenario.Reference, _ context: RequestContext) async throws -> RefundCalculator.SavedScenario {
        let account = try Self.caller(context), id = try Self.id(request.id)
        let row = try await database.transaction { connection in try await scenarios.find(id: id, account: account, on: connection) }
        guard let row else { throw Self.notFound }
        return withEstimate(row.saved)
    }

    @Sendable
    func update(_ request: RefundCalculator.Scenario.Update.Request, _ context: RequestContext) async throws -> RefundCalculator.SavedScenario {
        let account = try Self.caller(context), id = try Self.id(request.id)
        let name = try check(name: request.name, scenario: request.scenario)
        let row = try await database.transaction { connection in
            try await scenarios.update(id: id, account: account, name: name, scenario: request.scenario, on: connection)
        }
        guard let row else { throw Self.notFound }
        return withEstimate(row.saved)
    }

    @Sendable
    func delete(_ request: RefundCalculator.Scenario.Reference, _ context: RequestContext) async throws -> RefundCalculator.Scenario.Delete.Response {
        let account = try Self.caller(context), id = try Self.id(request.id)
        let deleted = try await database.transaction { connection in try await scenarios.delete(id: id, account: account, on: connection) }
        guard deleted else { throw Self.notFound }
        return .init(deleted: true)
    }

    /// The trimmed name, once the name and the answers are known to be acceptable (the answers as
    /// the estimator checks them, so a saved scenario always loads).
    private func check(name raw: String, scenario: RefundCalculator.Scenario) throws(OperationError) -> String {
        let name = raw.trimmingCharacters(in: .whitespaces)
        var validation = Validation()
        validation.checkName(name, "data.name")
        _ = try estimates.estimate(nested: scenario, &validation)
        try validation.finish()
        return name
    }

    /// `saved` with its estimate under today's rules, or the reason there is none.
    private func withEstimate(_ saved: RefundCalculator.SavedScenario) -> RefundCalculator.SavedScenario {
        var saved = saved
        do {
            saved.estimate = try estimates.estimator.estimate(saved.scenario, today: estimates.today())
        } catch {
            saved.problem = error.message.replacingOccurrences(of: "data.", with: "scenario.")
        }
        return saved
    }

    static let notFound = OperationError(.notFound, "data.id: you have no saved scenario with this id", fields: [.init(field: "data.id", message: "is not one of your scenarios")])

    static func id(_ text: String) throws(OperationError) -> UUID {
        guard let id = UUID(uuidString: text) else { throw notFound }
        return id
    }

    /// The account the gateway verified the token of.
    static func caller(_ context: RequestContext) throws(OperationError) -> UUID {
        try context.attributes.signedInAccount(for: "saved scenarios")
    }
}
