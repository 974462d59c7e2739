import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import PostgresNIO
import PostgresSupport

/// `household.households.*`: creating a household, reading the caller's, and the owner's settings.
struct HouseholdHandlers: Sendable {
    let database: Database
    let households: HouseholdStore
    let access: HouseholdAccess
    let configuration: HouseholdConfiguration

    /// Outside the transaction: the caller and the trimmed name.
    @Sendable
    func prepareCreate(_ request: Household.Households.Create.Request, _ context: RequestContext) async throws
        -> (account: UUID, name: String, currency: Currency)
    {
        (try HouseholdAccess.caller(context), try Self.checkedName(request.name), request.currency)
    }

    /// In the transaction that records the reply: the household, within the account's limit.
    @Sendable
    func create(_ checked: (account: UUID, name: String, currency: Currency), _ context: RequestContext, on connection: PostgresConnection) async throws
        -> Household.View
    {
        try await lockAccount(checked.account, on: connection)
        guard try await households.count(of: checked.account, on: connection) < configuration.householdsPerAccount else {
            throw Self.tooManyHouseholds(configuration.householdsPerAccount)
        }
        let membership = try await households.create(name: checked.name, currency: checked.currency, owner: checked.account, on: connection)
        return try await households.view(membership, on: connection)
    }

    @Sendable
    func list(_ request: Empty, _ context: RequestContext) async throws -> Household.Households.List.Response {
        let account = try HouseholdAccess.caller(context)
        return .init(households: try await database.transaction { try await households.views(of: account, on: $0) })
    }

    @Sendable
    func get(_ request: Household.Reference, _ context: RequestContext) async throws -> Household.View {
        try await database.transaction { connection in
            try await households.view(try await access.member(of: request.householdId, context, on: connection), on: connection)
        }
    }

    @Sendable
    func update(_ request: Household.Households.Update.Request, _ context: RequestContext) async throws -> Household.View {
        let name = try request.name.map(Self.checkedName)
        return try await database.transaction { connection in
            let owner = try await access.owner(of: request.householdId, context, to: "change its name or settings", on: connection)
            let current = try await households.view(owner, on: connection)
            guard try await households.update(
                owner.household, version: request.version, name: name, currency: request.currency, simplifyDebts: request.simplifyDebts,
                reminderLeadMinutes: request.reminderLeadMinutes, on: connection)
            else {
                throw OperationError.staleVersion(of: current, read: request.version, current: current.version, "household")
            }
            return try await households.view(owner, on: connection)
        }
    }

    /// One account's household changes (creating, joining) one at a time, so its limit holds.
    func lockAccount(_ account: UUID, on connection: PostgresConnection) async throws {
        try await database.lockForTransaction("household-account/" + account.uuidString, on: connection)
    }

    static func tooManyHouseholds(_ limit: Int) -> OperationError {
        OperationError(.conflict, "an account belongs to at most \(limit) households; leave one to join or create another")
    }

    static func checkedName(_ raw: String) throws(OperationError) -> String {
        let name = raw.trimmingCharacters(in: .whitespaces)
        var validation = Validation()
        validation.checkName(name, "data.name")
        try validation.finish()
        return name
    }
}
