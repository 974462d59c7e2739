import Contracts
import Foundation
import HouseholdContract
import PostgresNIO
import PostgresSupport

/// `household.shopping_trips` and `household.shopping_trip_items`: the shopping list as it was when a
/// trip was finished; and which items the shopping list leaves out (`grocery_items.cleared_at`).
struct ShoppingTripStore: Sendable {
    let database: Database

    /// A finished trip in a page of trips.
    struct TripRow: Sendable {
        let summary: Household.ShoppingTrip.Summary
        /// The page key.
        let seq: Int64
    }

    /// The items on the shopping list of `household` now, in its order (the communal items, then
    /// each member's in the order they joined), locked for the transaction, and whether each is bought.
    /// The same items `GroceryStore.shoppingLists` and `items(of:visibleTo:leavingOutCleared:)` show.
    func itemsOnShoppingList(of household: UUID, on connection: PostgresConnection) async throws -> [(id: UUID, bought: Bool)] {
        try await connection.query(
            """
            SELECT i.id, i.bought_at IS NOT NULL FROM grocery_items i JOIN grocery_lists l ON l.id = i.list_id
            WHERE l.household_id = \(household) AND l.finished_at IS NULL AND NOT i.private AND i.cleared_at IS NULL
              AND (l.kind = 'communal' OR l.owner_member IN (SELECT id FROM members WHERE household_id = \(household) AND left_at IS NULL))
            ORDER BY (SELECT seq FROM members m WHERE m.id = l.owner_member) NULLS FIRST, i.seq
            FOR UPDATE OF i
            """,
            logger: database.logger
        ).decode((UUID, Bool).self).reduce(into: [(id: UUID, bought: Bool)]()) { $0.append((id: $1.0, bought: $1.1)) }
    }

    /// A new trip finished by `member` now, holding copies of `items` in their order; returns its id.
    func record(_ items: [UUID], in household: UUID, by member: UUID, on connection: PostgresConnection) async throws -> UUID {
        let id = UUID()
        try await connection.query(
            "INSERT INTO shopping_trips (id, household_id, finished_by, finished_at) VALUES (\(id), \(household), \(member), \(database.now()))",
            logger: database.logger)
        try await connection.query(
            """
            INSERT INTO shopping_trip_items (trip_id, place, item_id, kind, wanted_by, name, quantity, unit, note, category, added_by,
                                             bought_by, bought_at, price_minor, price_currency)
            SELECT \(id), array_position(\(items)::uuid[], i.id), i.id, l.kind, l.owner_member, i.name, i.quantity, i.unit, i.note, i.category,
                   i.added_by, i.bought_by, i.bought_at, i.price_minor, i.price_currency
            FROM grocery_items i JOIN grocery_lists l ON l.id = i.list_id
            WHERE i.id = ANY(\(items)::uuid[]) AND i.household_id = \(household)
            """,
            logger: database.logger)
        return id
    }

    /// The items leave the shopping list (they stay on their own lists); returns how many.
    func clear(_ items: [UUID], on connection: PostgresConnection) async throws -> Int {
        guard !items.isEmpty else { return 0 }
        return try await connection.query(
            "UPDATE grocery_items SET cleared_at = \(database.now()) WHERE id = ANY(\(items)::uuid[]) AND cleared_at IS NULL RETURNING 1",
            logger: database.logger
        ).collect().count
    }

    /// Finished trips of `household`, the last finished first, before `before` in the page order.
    func trips(of household: UUID, limit: Int, before: Int64?, on connection: PostgresConnection) async throws -> [TripRow] {
        let rows = try await connection.query(
            """
            SELECT t.id, t.finished_at, t.finished_by, t.seq,
                   (SELECT count(*)::int FROM shopping_trip_items s WHERE s.trip_id = t.id),
                   (SELECT count(*)::int FROM shopping_trip_items s WHERE s.trip_id = t.id AND s.bought_by IS NOT NULL)
            FROM shopping_trips t
            WHERE t.household_id = \(household) AND t.seq < \(before ?? Int64.max)
            ORDER BY t.seq DESC LIMIT \(limit)
            """,
            logger: database.logger)
        var trips: [TripRow] = []
        for try await (id, finished, finisher, seq, items, bought) in rows.decode((UUID, Date, UUID, Int64, Int, Int).self) {
            trips.append(TripRow(
                summary: .init(id: HouseholdStore.text(id), finishedAt: finished, finishedBy: HouseholdStore.text(finisher), itemCount: items, boughtCount: bought),
                seq: seq))
        }
        return trips
    }

    /// The trip `id` of `household` with its items; nil when there is none.
    func trip(_ id: UUID, of household: UUID, on connection: PostgresConnection) async throws -> Household.ShoppingTrip? {
        let header = try await connection.query(
            "SELECT finished_at, finished_by FROM shopping_trips WHERE id = \(id) AND household_id = \(household)", logger: database.logger
        ).decode((Date, UUID).self).reduce(into: [(Date, UUID)]()) { $0.append($1) }.first
        guard let header else { return nil }
        let (finishedAt, finishedBy) = header
        let rows = try await connection.query(
            """
            SELECT item_id, kind, wanted_by, name, quantity, unit, note, category, added_by, bought_by, bought_at, price_minor, price_currency
            FROM shopping_trip_items WHERE trip_id = \(id) ORDER BY place
            """,
            logger: database.logger)
        var items: [Household.TripItem] = []
        for try await row in rows {
            let cells = row.makeRandomAccess()
            func cell<T: PostgresDecodable>(_ index: Int, _ type: T.Type = T.self) throws -> T { try cells[index].decode(T.self) }
            let wantedBy = try cell(2, UUID?.self), boughtBy = try cell(9, UUID?.self), boughtAt = try cell(10, Date?.self)
            let price = try cell(11, Int64?.self).flatMap { minor in
                try? cell(12, String?.self).flatMap(Currency.init(rawValue:)).map { Money(minorUnits: minor, currency: $0) }
            }
            items.append(Household.TripItem(
                itemId: HouseholdStore.text(try cell(0, UUID.self)), list: Household.ListKind(rawValue: try cell(1, String.self)) ?? .communal,
                wantedBy: wantedBy.map(HouseholdStore.text), name: try cell(3), quantity: try cell(4), unit: try cell(5), note: try cell(6),
                category: try cell(7), addedBy: HouseholdStore.text(try cell(8, UUID.self)),
                bought: boughtBy.flatMap { by in boughtAt.map { Household.Purchase(memberId: HouseholdStore.text(by), at: $0, price: price) } }))
        }
        return Household.ShoppingTrip(id: HouseholdStore.text(id), finishedAt: finishedAt, finishedBy: HouseholdStore.text(finishedBy), items: items)
    }

    /// What `members` (an erased account's memberships) wanted, in every trip: it goes with the
    /// account, as its own lists do.
    func forgetWishes(of members: [UUID], on connection: PostgresConnection) async throws {
        guard !members.isEmpty else { return }
        try await connection.query("DELETE FROM shopping_trip_items WHERE wanted_by = ANY(\(members)::uuid[])", logger: database.logger)
    }
}
