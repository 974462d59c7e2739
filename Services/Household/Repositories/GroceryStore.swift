import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import PostgresNIO
import PostgresSupport

/// `household.grocery_lists` and `household.grocery_items`: the lists, current and finished, and
/// what is on them. Who may see or change what is the handlers' business.
struct GroceryStore: Sendable {
    let database: Database

    /// A list without its items.
    struct ListRow: Sendable {
        let id: UUID
        let kind: Household.ListKind
        let owner: UUID?
        let seq: Int64
        let createdAt: Date
        let updatedAt: Date
        let finishedAt: Date?
        let finishedBy: UUID?

        func view(items: [Household.GroceryItem]) -> Household.GroceryList {
            Household.GroceryList(
                id: HouseholdStore.text(id), kind: kind, ownerId: owner.map(HouseholdStore.text), createdAt: createdAt, updatedAt: updatedAt,
                finishedAt: finishedAt, finishedBy: finishedBy.map(HouseholdStore.text), items: items)
        }
    }

    /// The values an item is written with.
    struct ItemValues: Sendable {
        var name: String
        var quantity: Int?
        var unit: String?
        var note: String?
        var category: String?
        var isPrivate: Bool
    }

    private static let listColumns = "id, kind, owner_member, seq, created_at, updated_at, finished_at, finished_by"
    private static let itemColumns = """
        i.id, i.list_id, l.kind, l.owner_member, i.name, i.quantity, i.unit, i.note, i.category, i.private, i.added_by, i.added_at,
        i.updated_at, i.bought_by, i.bought_at, i.price_minor, i.price_currency, i.version, i.bought_seq, l.finished_at, i.bill_id
        """

    /// The current list of `kind` (the personal one of `owner`), started now when there is none.
    func current(_ kind: Household.ListKind, of household: UUID, owner: UUID?, on connection: PostgresConnection) async throws -> ListRow {
        let now = database.now()
        for _ in 0..<2 {
            if let row = try await lists(
                "household_id = \(household) AND kind = \(kind.rawValue) AND owner_member IS NOT DISTINCT FROM \(owner) AND finished_at IS NULL",
                on: connection
            ).first {
                return row
            }
            // Two first reads at once: one inserts, the other finds it on its second look.
            try await connection.query(
                """
                INSERT INTO grocery_lists (id, household_id, kind, owner_member, created_at, updated_at)
                VALUES (\(UUID()), \(household), \(kind.rawValue), \(owner), \(now), \(now)) ON CONFLICT DO NOTHING
                """,
                logger: database.logger)
        }
        throw OperationError(.internal, "the current list could not be started")
    }

    /// The list `id` of `household`; nil when there is none.
    func list(_ id: UUID, of household: UUID, on connection: PostgresConnection) async throws -> ListRow? {
        try await lists("id = \(id) AND household_id = \(household)", on: connection).first
    }

    /// Finished lists of `kind` (of `owner`), the last finished first, before `before` in the page order.
    func history(_ kind: Household.ListKind, of household: UUID, owner: UUID?, limit: Int, before: Int64?,
                 on connection: PostgresConnection) async throws -> [ListRow] {
        try await lists(
            """
            household_id = \(household) AND kind = \(kind.rawValue) AND owner_member IS NOT DISTINCT FROM \(owner) AND finished_at IS NOT NULL
            AND seq < \(before ?? Int64.max) ORDER BY seq DESC LIMIT \(limit)
            """,
            on: connection)
    }

    /// The current lists the shopping list is made of: the communal one, then the personal lists of
    /// those who belong, in the order they joined.
    func shoppingLists(of household: UUID, on connection: PostgresConnection) async throws -> [ListRow] {
        try await lists(
            """
            household_id = \(household) AND finished_at IS NULL
            AND (kind = 'communal' OR owner_member IN (SELECT id FROM members WHERE household_id = \(household) AND left_at IS NULL))
            ORDER BY (SELECT seq FROM members m WHERE m.id = owner_member) NULLS FIRST
            """,
            on: connection)
    }

    private func lists(_ condition: PostgresQuery, on connection: PostgresConnection) async throws -> [ListRow] {
        var rows: [ListRow] = []
        let query = PostgresQuery.select("\(Self.listColumns) FROM grocery_lists", where: condition)
        for try await (id, kind, owner, seq, created, updated, finished, finisher) in try await connection.query(query, logger: database.logger)
            .decode((UUID, String, UUID?, Int64, Date, Date, Date?, UUID?).self)
        {
            rows.append(ListRow(
                id: id, kind: Household.ListKind(rawValue: kind) ?? .communal, owner: owner, seq: seq, createdAt: created, updatedAt: updated,
                finishedAt: finished, finishedBy: finisher))
        }
        return rows
    }

    /// The items of `lists`, oldest first in each; `visibleTo` leaves out the others' private items,
    /// and `leavingOutCleared` those a finished trip or a clearing took off the shopping list.
    func items(of lists: [UUID], visibleTo member: UUID?, leavingOutCleared: Bool = false, on connection: PostgresConnection) async throws
        -> [UUID: [Household.GroceryItem]]
    {
        guard !lists.isEmpty else { return [:] }
        var grouped: [UUID: [Household.GroceryItem]] = [:]
        for item in try await items(
            """
            i.list_id = ANY(\(lists)) AND (NOT i.private OR l.owner_member IS NOT DISTINCT FROM \(member))
            AND (NOT \(leavingOutCleared) OR i.cleared_at IS NULL) ORDER BY i.seq
            """,
            on: connection)
        {
            grouped[UUID(uuidString: item.view.listId)!, default: []].append(item.view)
        }
        return grouped
    }

    /// An item as stored, with what the handlers decide on.
    struct ItemRow: Sendable {
        let view: Household.GroceryItem
        let owner: UUID?
        let listFinished: Bool
        let boughtSeq: Int64?
        /// The bill a shopping trip put it on.
        let billId: UUID?
    }

    /// The item `id` of `household`; nil when there is none.
    func item(_ id: UUID, of household: UUID, locking: Bool = false, on connection: PostgresConnection) async throws -> ItemRow? {
        try await items("i.id = \(id) AND i.household_id = \(household)\(unescaped: locking ? " FOR UPDATE OF i" : "")", on: connection).first
    }

    /// Bought items of `household` the member `viewer` may see, the last bought first.
    func purchases(of household: UUID, viewer: UUID, in month: DateInterval?, by buyer: UUID?, limit: Int, before: Int64?,
                   on connection: PostgresConnection) async throws -> [ItemRow] {
        try await items(
            """
            i.household_id = \(household) AND i.bought_seq IS NOT NULL AND i.bought_seq < \(before ?? Int64.max)
            AND (NOT i.private OR l.owner_member = \(viewer))
            AND (\(month?.start)::timestamptz IS NULL OR (i.bought_at >= \(month?.start) AND i.bought_at < \(month?.end)))
            AND (\(buyer)::uuid IS NULL OR i.bought_by = \(buyer))
            ORDER BY i.bought_seq DESC LIMIT \(limit)
            """,
            on: connection)
    }

    private func items(_ condition: PostgresQuery, on connection: PostgresConnection) async throws -> [ItemRow] {
        var rows: [ItemRow] = []
        let query = PostgresQuery.select("\(Self.itemColumns) FROM grocery_items i JOIN grocery_lists l ON l.id = i.list_id", where: condition)
        for try await row in try await connection.query(query, logger: database.logger) {
            let cells = row.makeRandomAccess()
            func cell<T: PostgresDecodable>(_ index: Int, _ type: T.Type = T.self) throws -> T { try cells[index].decode(T.self) }
            let kind = Household.ListKind(rawValue: try cell(2, String.self)) ?? .communal, owner = try cell(3, UUID?.self)
            let boughtBy = try cell(13, UUID?.self), boughtAt = try cell(14, Date?.self)
            let price = try cell(15, Int64?.self).flatMap { minor in try? cell(16, String?.self).flatMap(Currency.init(rawValue:)).map { Money(minorUnits: minor, currency: $0) } }
            let view = Household.GroceryItem(
                id: HouseholdStore.text(try cell(0)), listId: HouseholdStore.text(try cell(1)), list: kind, wantedBy: owner.map(HouseholdStore.text),
                name: try cell(4), quantity: try cell(5), unit: try cell(6), note: try cell(7), category: try cell(8), private: try cell(9),
                addedBy: HouseholdStore.text(try cell(10)), addedAt: try cell(11), updatedAt: try cell(12),
                bought: boughtBy.flatMap { by in boughtAt.map { Household.Purchase(memberId: HouseholdStore.text(by), at: $0, price: price) } },
                version: try cell(17))
            rows.append(ItemRow(view: view, owner: owner, listFinished: try cell(19, Date?.self) != nil, boughtSeq: try cell(18), billId: try cell(20)))
        }
        return rows
    }

    /// The items are on `bill`.
    func attach(_ items: [UUID], to bill: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE grocery_items SET bill_id = \(bill) WHERE id = ANY(\(items))", logger: database.logger)
    }

    /// How many items `list` has.
    func count(of list: UUID, on connection: PostgresConnection) async throws -> Int {
        try await connection.query("SELECT count(*)::int FROM grocery_items WHERE list_id = \(list)", logger: database.logger).decode(Int.self).reduce(0, +)
    }

    /// A new item on `list`; returns its id.
    func add(_ values: ItemValues, to list: UUID, of household: UUID, by member: UUID, on connection: PostgresConnection) async throws -> UUID {
        let id = UUID(), now = database.now()
        try await connection.query(
            """
            INSERT INTO grocery_items (id, list_id, household_id, name, quantity, unit, note, category, private, added_by, added_at, updated_at)
            VALUES (\(id), \(list), \(household), \(values.name), \(values.quantity), \(values.unit), \(values.note), \(values.category),
                    \(values.isPrivate), \(member), \(now), \(now))
            """,
            logger: database.logger)
        try await touch(list, on: connection)
        return id
    }

    /// What is bought: nil for not bought, else by whom and for how much.
    enum BoughtChange: Sendable {
        case unchanged, notBought
        case bought(by: UUID, price: Money?)
    }

    /// Writes the item's new values, purchase and list when it is at `version`; false when it moved on.
    /// An item not bought after the change is wanted: back on the shopping list if a finished trip or
    /// a clearing took it off.
    func update(_ id: UUID, version: Int, values: ItemValues, bought: BoughtChange, list: UUID, on connection: PostgresConnection) async throws -> Bool {
        let now = database.now()
        var buyer: UUID?, price: Money?
        let change: String
        switch bought {
        case .unchanged: change = "keep"
        case .notBought: change = "clear"
        case .bought(let by, let paid):
            (buyer, price) = (by, paid)
            change = "set"
        }
        let updated = try await connection.query(
            """
            UPDATE grocery_items SET name = \(values.name), quantity = \(values.quantity), unit = \(values.unit), note = \(values.note),
                category = \(values.category), private = \(values.isPrivate), list_id = \(list), updated_at = \(now), version = version + 1,
                cleared_at = CASE WHEN \(change) = 'clear' OR (\(change) = 'keep' AND bought_at IS NULL) THEN NULL ELSE cleared_at END,
                bought_by = CASE \(change) WHEN 'keep' THEN bought_by WHEN 'clear' THEN NULL ELSE \(buyer) END,
                bought_at = CASE \(change) WHEN 'keep' THEN bought_at WHEN 'clear' THEN NULL ELSE \(now) END,
                bought_seq = CASE \(change) WHEN 'keep' THEN bought_seq WHEN 'clear' THEN NULL ELSE nextval('grocery_purchase_seq') END,
                price_minor = CASE \(change) WHEN 'keep' THEN price_minor WHEN 'clear' THEN NULL ELSE \(price?.minorUnits) END,
                price_currency = CASE \(change) WHEN 'keep' THEN price_currency WHEN 'clear' THEN NULL ELSE \(price?.currency.code) END
            WHERE id = \(id) AND version = \(version)
            RETURNING 1
            """,
            logger: database.logger
        ).collect().count == 1
        if updated { try await touch(list, on: connection) }
        return updated
    }

    /// Deletes the item; false when there was none.
    func deleteItem(_ id: UUID, from list: UUID, on connection: PostgresConnection) async throws -> Bool {
        let deleted = try await connection.query("DELETE FROM grocery_items WHERE id = \(id) RETURNING 1", logger: database.logger).collect().count == 1
        if deleted { try await touch(list, on: connection) }
        return deleted
    }

    /// The list goes to the history; false when it was finished already.
    func finish(_ list: UUID, by member: UUID, on connection: PostgresConnection) async throws -> Bool {
        let now = database.now()
        return try await connection.query(
            """
            UPDATE grocery_lists SET finished_at = \(now), finished_by = \(member), updated_at = \(now)
            WHERE id = \(list) AND finished_at IS NULL RETURNING 1
            """,
            logger: database.logger
        ).collect().count == 1
    }

    /// Deletes the list with its items; false when there was none.
    func deleteList(_ list: UUID, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query("DELETE FROM grocery_lists WHERE id = \(list) RETURNING 1", logger: database.logger).collect().count == 1
    }

    private func touch(_ list: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE grocery_lists SET updated_at = \(database.now()) WHERE id = \(list)", logger: database.logger)
    }
}
