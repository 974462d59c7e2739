import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// `household.groceries.*`, `household.grocery-lists.*` and `household.grocery-items.*`.
///
/// Who sees what: every member sees the communal lists and their own personal lists; another
/// member's personal items only on the shopping list, in the purchase history and by id, and never
/// the private ones. Anything a member may not see is `not_found`, like what does not exist. Who
/// changes what: a personal item's words belong to its owner, a communal item's to everyone; anyone
/// who sees an item may mark it bought, so one shopper buys for all.
struct GroceryHandlers: Sendable {
    let database: Database
    let groceries: GroceryStore
    let access: HouseholdAccess
    let notifier: HouseholdNotifier

    /// Trips announced per member and household in an hour.
    static let trips = RateLimit("household.shopping-trips", count: 6, per: .seconds(3_600), message: "you told the household of 6 trips this hour already")

    static let listNotFound = OperationError(
        .notFound, "data.listId: there is no such list of yours or of the household", fields: [.init(field: "data.listId", message: "is not a list you can see")])
    static let itemNotFound = OperationError(
        .notFound, "data.itemId: there is no such item you can see", fields: [.init(field: "data.itemId", message: "is not an item you can see")])

    // MARK: Lists

    @Sendable
    func current(_ request: Household.Groceries.ListReference, _ context: RequestContext) async throws -> Household.GroceryList {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let list = try await groceries.current(request.list, of: member.household, owner: owner(request.list, member), on: connection)
            return try await view(list, for: member, on: connection)
        }
    }

    @Sendable
    func history(_ request: Household.Groceries.History.Request, _ context: RequestContext) async throws -> Household.Groceries.History.Response {
        let limit = try request.page.checked()
        return try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let rows = try await groceries.history(
                request.list, of: member.household, owner: owner(request.list, member), limit: limit, before: request.after, on: connection)
            let items = try await groceries.items(of: rows.map(\.id), visibleTo: member.member, on: connection)
            return .init(lists: rows.map { $0.view(items: items[$0.id] ?? []) }, nextAfter: rows.count == limit ? rows.last?.seq : nil)
        }
    }

    @Sendable
    func shoppingList(_ request: Household.Reference, _ context: RequestContext) async throws -> Household.Groceries.ShoppingList.Response {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let lists = try await groceries.shoppingLists(of: member.household, on: connection)
            let items = try await groceries.items(of: lists.map(\.id), visibleTo: nil, leavingOutCleared: true, on: connection)
            return .init(groups: lists.compactMap { list in
                guard let wanted = items[list.id], !wanted.isEmpty else { return nil }
                return .init(memberId: list.owner.map(HouseholdStore.text), listId: HouseholdStore.text(list.id), items: wanted)
            })
        }
    }

    @Sendable
    func getList(_ request: Household.GroceryLists.Reference, _ context: RequestContext) async throws -> Household.GroceryList {
        try await database.transaction { connection in
            let (member, list) = try await visibleList(request, context, on: connection)
            return try await view(list, for: member, on: connection)
        }
    }

    @Sendable
    func finish(_ request: Household.GroceryLists.Reference, _ context: RequestContext) async throws -> Household.GroceryList {
        try await database.transaction { connection in
            let (member, list) = try await visibleList(request, context, on: connection)
            _ = try await groceries.finish(list.id, by: member.member, on: connection)
            guard let finished = try await groceries.list(list.id, of: member.household, on: connection) else { throw Self.listNotFound }
            return try await view(finished, for: member, on: connection)
        }
    }

    @Sendable
    func deleteList(_ request: Household.GroceryLists.Reference, _ context: RequestContext) async throws -> Household.GroceryLists.Delete.Response {
        try await database.transaction { connection in
            let (_, list) = try await visibleList(request, context, on: connection)
            return .init(deleted: try await groceries.deleteList(list.id, on: connection))
        }
    }

    // MARK: Items

    /// Outside the transaction: the checked words of the new item.
    @Sendable
    func prepareAdd(_ request: Household.Groceries.Add.Request, _ context: RequestContext) async throws
        -> (values: GroceryStore.ItemValues, request: Household.Groceries.Add.Request)
    {
        var validation = Validation()
        let values = Self.values(
            GroceryStore.ItemValues(name: "", isPrivate: false), name: request.name, quantity: request.quantity, unit: request.unit, note: request.note,
            category: request.category, isPrivate: request.private, list: request.list, validation: &validation)
        try validation.finish()
        return (values, request)
    }

    /// In the transaction that records the reply: the item on the current list, and the others told
    /// of a communal one.
    @Sendable
    func add(_ prepared: (values: GroceryStore.ItemValues, request: Household.Groceries.Add.Request), _ context: RequestContext,
             on connection: PostgresConnection) async throws -> Household.GroceryItem {
        let (values, request) = prepared
        let member = try await access.member(of: request.householdId, context, on: connection)
        let list = try await groceries.current(request.list, of: member.household, owner: owner(request.list, member), on: connection)
        return try await add(values, to: list, by: member, on: connection)
    }

    @Sendable
    func getItem(_ request: Household.GroceryItems.Reference, _ context: RequestContext) async throws -> Household.GroceryItem {
        try await database.transaction { connection in try await visibleItem(request.householdId, request.itemId, context, on: connection).1.view }
    }

    @Sendable
    func updateItem(_ request: Household.GroceryItems.Update.Request, _ context: RequestContext) async throws -> Household.GroceryItem {
        try await database.transaction { connection in
            let (member, item) = try await visibleItem(request.householdId, request.itemId, context, locking: true, on: connection)
            let old = item.view
            let changesWords = [request.name, request.unit, request.note, request.category].contains { $0 != nil }
                || request.quantity != nil || request.private != nil || request.list == .communal
            if changesWords, item.owner != nil, item.owner != member.member {
                throw OperationError(.forbidden, "only the member whose personal list it is may change it; mark it bought, or add your own")
            }
            var validation = Validation()
            let values = Self.values(
                GroceryStore.ItemValues(name: old.name, quantity: old.quantity, unit: old.unit, note: old.note, category: old.category, isPrivate: old.private),
                name: request.name, quantity: request.quantity, unit: request.unit, note: request.note, category: request.category,
                isPrivate: request.private, list: request.list == .communal ? .communal : old.list, validation: &validation)
            let bought = Self.boughtChange(request, by: member.member, validation: &validation)
            if case .unchanged = bought {} else {
                // A purchase is its buyer's: another member neither takes it over nor undoes it, and
                // one on a bill changes with the bill.
                if let previous = old.bought, previous.memberId != HouseholdStore.text(member.member) {
                    throw OperationError(.forbidden, "another member bought it; only they change the purchase")
                }
                if item.billId != nil { throw OperationError(.conflict, "the purchase is on a bill; change or delete the bill instead") }
            }
            if request.list == .personal, old.list == .communal {
                validation.fail("data.list", "a communal item stays communal; add it to your own list instead")
            }
            var list = UUID(uuidString: old.listId)!
            if request.list == .communal, old.list == .personal {
                validation.check(!item.listFinished, "data.list", "only an item of your current personal list moves to the communal list")
                if validation.isValid {
                    list = try await groceries.current(.communal, of: member.household, owner: nil, on: connection).id
                    try await checkRoom(on: list, on: connection)
                }
            }
            try validation.finish()
            guard old.version == request.version else {
                throw OperationError.staleVersion(of: old, read: request.version, current: old.version, "item")
            }
            _ = try await groceries.update(item.view.id.uuid, version: request.version, values: values, bought: bought, list: list, on: connection)
            guard let updated = try await groceries.item(item.view.id.uuid, of: member.household, on: connection) else { throw Self.itemNotFound }
            if list != UUID(uuidString: old.listId)! {
                try await tellCommunalAdded(updated.view, by: member, on: connection)
            }
            return updated.view
        }
    }

    @Sendable
    func deleteItem(_ request: Household.GroceryItems.Reference, _ context: RequestContext) async throws -> Household.GroceryItems.Delete.Response {
        try await database.transaction { connection in
            let (member, item) = try await visibleItem(request.householdId, request.itemId, context, locking: true, on: connection)
            if let owner = item.owner, owner != member.member {
                throw OperationError(.forbidden, "only the member whose personal list it is may delete it")
            }
            return .init(deleted: try await groceries.deleteItem(item.view.id.uuid, from: UUID(uuidString: item.view.listId)!, on: connection))
        }
    }

    @Sendable
    func buyAgain(_ request: Household.GroceryItems.BuyAgain.Request, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> Household.GroceryItem
    {
        let kind = request.list ?? .personal
        let (member, item) = try await visibleItem(request.householdId, request.itemId, context, on: connection)
        let old = item.view
        let values = GroceryStore.ItemValues(
            name: old.name, quantity: old.quantity, unit: old.unit, note: old.note, category: old.category, isPrivate: kind == .personal && old.private)
        let list = try await groceries.current(kind, of: member.household, owner: owner(kind, member), on: connection)
        return try await add(values, to: list, by: member, on: connection)
    }

    @Sendable
    func purchases(_ request: Household.Groceries.Purchases.Request, _ context: RequestContext) async throws -> Household.Groceries.Purchases.Response {
        let limit = try request.page.checked()
        var validation = Validation()
        let month = request.month.flatMap(CalendarDay.month)
        validation.check(request.month == nil || month != nil, "data.month", "must be a month: YYYY-MM")
        let buyer = request.memberId.flatMap(UUID.init(uuidString:))
        validation.check(request.memberId == nil || buyer != nil, "data.memberId", "must be a member id")
        try validation.finish()
        return try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let rows = try await groceries.purchases(
                of: member.household, viewer: member.member, in: month, by: buyer, limit: limit, before: request.after, on: connection)
            return .init(items: rows.map(\.view), nextAfter: rows.count == limit ? rows.last?.boughtSeq : nil)
        }
    }

    // MARK: Shopping trips

    @Sendable
    func prepareGoShopping(_ request: Household.Groceries.GoShopping.Request, _ context: RequestContext) async throws
        -> (note: String?, request: Household.Groceries.GoShopping.Request)
    {
        var validation = Validation()
        let note = validation.checkText(request.note, "data.note", 0...120)
        try validation.finish()
        return (note, request)
    }

    @Sendable
    func goShopping(_ prepared: (note: String?, request: Household.Groceries.GoShopping.Request), _ context: RequestContext,
                    on connection: PostgresConnection) async throws -> Household.Groceries.GoShopping.Response {
        let (note, request) = prepared
        let member = try await access.member(of: request.householdId, context, on: connection)
        try await database.hit(Self.trips, [.other("\(member.household)/\(member.member)")], at: database.now(), on: connection)
        let list = try await groceries.current(.communal, of: member.household, owner: nil, on: connection)
        let told = try await notifier.tell(
            .goingShopping, .init(household: member.household, resource: "shopping-list", id: list.id), except: member.member,
            title: "A roommate is going shopping", body: note ?? "Add what you need to your list now.", on: connection)
        return .init(notified: told)
    }

    // MARK: Shared steps

    private func owner(_ kind: Household.ListKind, _ member: HouseholdStore.Membership) -> UUID? {
        kind == .personal ? member.member : nil
    }

    private func view(_ list: GroceryStore.ListRow, for member: HouseholdStore.Membership, on connection: PostgresConnection) async throws
        -> Household.GroceryList
    {
        list.view(items: try await groceries.items(of: [list.id], visibleTo: member.member, on: connection)[list.id] ?? [])
    }

    /// The list when the caller may see it: communal, or their own.
    private func visibleList(_ request: Household.GroceryLists.Reference, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> (HouseholdStore.Membership, GroceryStore.ListRow)
    {
        let member = try await access.member(of: request.householdId, context, locking: true, on: connection)
        guard let id = UUID(uuidString: request.listId), let list = try await groceries.list(id, of: member.household, on: connection),
              list.owner == nil || list.owner == member.member
        else { throw Self.listNotFound }
        return (member, list)
    }

    /// The item when the caller may see it: communal, their own, or another's that is not private.
    private func visibleItem(_ household: String, _ itemId: String, _ context: RequestContext, locking: Bool = false,
                             on connection: PostgresConnection) async throws -> (HouseholdStore.Membership, GroceryStore.ItemRow) {
        let member = try await access.member(of: household, context, on: connection)
        guard let id = UUID(uuidString: itemId), let item = try await groceries.item(id, of: member.household, locking: locking, on: connection),
              !item.view.private || item.owner == member.member
        else { throw Self.itemNotFound }
        return (member, item)
    }

    private func add(_ values: GroceryStore.ItemValues, to list: GroceryStore.ListRow, by member: HouseholdStore.Membership,
                     on connection: PostgresConnection) async throws -> Household.GroceryItem {
        try await checkRoom(on: list.id, on: connection)
        let id = try await groceries.add(values, to: list.id, of: member.household, by: member.member, on: connection)
        guard let item = try await groceries.item(id, of: member.household, on: connection) else { throw Self.itemNotFound }
        if list.kind == .communal { try await tellCommunalAdded(item.view, by: member, on: connection) }
        return item.view
    }

    /// `conflict` when `list` holds as many items as a list may.
    private func checkRoom(on list: UUID, on connection: PostgresConnection) async throws {
        guard try await groceries.count(of: list, on: connection) < Household.Bounds.itemsPerList else {
            throw OperationError(.conflict, "a list holds at most \(Household.Bounds.itemsPerList) items; finish it or remove some")
        }
    }

    private func tellCommunalAdded(_ item: Household.GroceryItem, by member: HouseholdStore.Membership, on connection: PostgresConnection) async throws {
        try await notifier.tell(
            .communalGroceryAdded, .init(household: member.household, resource: "grocery-item", id: item.id.uuid), except: member.member,
            title: "Added to the communal list", body: item.name, on: connection)
    }

    /// `base` with the request's fields checked and applied; an empty unit, note or category clears it.
    static func values(_ base: GroceryStore.ItemValues, name: String?, quantity: Int?, unit: String?, note: String?, category: String?,
                       isPrivate: Bool?, list: Household.ListKind, validation: inout Validation) -> GroceryStore.ItemValues {
        var values = base
        if let name {
            values.name = name.trimmingCharacters(in: .whitespaces)
            validation.checkName(values.name, "data.name")
        }
        if let quantity {
            values.quantity = quantity
            validation.check(Household.Bounds.quantity.contains(quantity), "data.quantity", "must be from 1 to \(Household.Bounds.quantity.upperBound)")
        }
        if unit != nil { values.unit = validation.checkText(unit, "data.unit", Household.Bounds.unit) }
        if note != nil { values.note = validation.checkText(note, "data.note", Household.Bounds.note, newlines: true) }
        if category != nil { values.category = validation.checkText(category, "data.category", Household.Bounds.category) }
        if let isPrivate { values.isPrivate = isPrivate }
        if list == .communal, values.isPrivate {
            if isPrivate == true { validation.fail("data.private", "only an item of a personal list can be private") }
            values.isPrivate = false
        }
        return values
    }

    private static func boughtChange(_ request: Household.GroceryItems.Update.Request, by member: UUID, validation: inout Validation)
        -> GroceryStore.BoughtChange
    {
        if let price = request.price {
            validation.check(request.bought == true, "data.price", "goes with bought: true")
            validation.check((0...Household.Bounds.priceMinorUnits).contains(price.minorUnits), "data.price.minorUnits",
                             "must be from 0 to \(Household.Bounds.priceMinorUnits)")
        }
        switch request.bought {
        case true?: return .bought(by: member, price: request.price)
        case false?: return .notBought
        case nil: return .unchanged
        }
    }
}
