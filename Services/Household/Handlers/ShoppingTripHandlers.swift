import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import PostgresNIO
import PostgresSupport

/// `household.shopping-trips.*` and `household.shopping-list.clear.v1`: finished trips and clearing
/// the shopping list.
///
/// A finished trip keeps the shopping list as every member sees it (no private item is on it), so
/// any member reads every trip. Finishing and clearing hold the household's row, so two at once take
/// each item off once: the second finds what the first left.
struct ShoppingTripHandlers: Sendable {
    let database: Database
    let trips: ShoppingTripStore
    let access: HouseholdAccess

    static let notFound = OperationError(
        .notFound, "data.tripId: the household has no such shopping trip", fields: [.init(field: "data.tripId", message: "is not one of the household's trips")])

    /// In the transaction that records the reply: the shopping list kept as it is, and what was
    /// bought taken off it.
    @Sendable
    func finish(_ request: Household.Reference, _ context: RequestContext, on connection: PostgresConnection) async throws -> Household.ShoppingTrip {
        let member = try await access.member(of: request.householdId, context, locking: true, on: connection)
        let items = try await trips.itemsOnShoppingList(of: member.household, on: connection)
        let bought = items.filter { $0.bought }.map { $0.id }
        guard !bought.isEmpty else {
            throw OperationError(.conflict, "nothing on the shopping list is marked bought: mark what you bought, then finish the trip")
        }
        let id = try await trips.record(items.map { $0.id }, in: member.household, by: member.member, on: connection)
        _ = try await trips.clear(bought, on: connection)
        guard let trip = try await trips.trip(id, of: member.household, on: connection) else { throw Self.notFound }
        return trip
    }

    @Sendable
    func list(_ request: Household.ShoppingTrips.List.Request, _ context: RequestContext) async throws -> Household.ShoppingTrips.List.Response {
        let limit = try request.page.checked()
        return try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let rows = try await trips.trips(of: member.household, limit: limit, before: request.after, on: connection)
            return .init(trips: rows.map(\.summary), nextAfter: rows.count == limit ? rows.last?.seq : nil)
        }
    }

    @Sendable
    func get(_ request: Household.ShoppingTrips.Reference, _ context: RequestContext) async throws -> Household.ShoppingTrip {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            guard let id = UUID(uuidString: request.tripId), let trip = try await trips.trip(id, of: member.household, on: connection) else {
                throw Self.notFound
            }
            return trip
        }
    }

    @Sendable
    func clear(_ request: Household.Reference, _ context: RequestContext) async throws -> Household.ShoppingList.Clear.Response {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, locking: true, on: connection)
            let items = try await trips.itemsOnShoppingList(of: member.household, on: connection)
            return .init(cleared: try await trips.clear(items.map { $0.id }, on: connection))
        }
    }
}
