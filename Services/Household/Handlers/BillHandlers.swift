import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// `household.bills.*`: any member records, changes, deletes and restores the household's bills;
/// every change holds the household's money lock and keeps the running debts and the bill's history.
struct BillHandlers: Sendable {
    let database: Database
    let bills: BillStore
    let households: HouseholdStore
    let groceries: GroceryStore
    let photos: PhotoStore
    let access: HouseholdAccess
    let notifier: HouseholdNotifier

    static let notFound = OperationError(
        .notFound, "data.billId: the household has no such bill", fields: [.init(field: "data.billId", message: "is not one of the household's bills")])

    /// The words and day of a bill, checked.
    struct Words: Sendable {
        var title: String?
        var date: String?
        var category: String?
        var note: String?
    }

    // MARK: Create

    @Sendable
    func prepareCreate(_ request: Household.Bills.Create.Request, _ context: RequestContext) async throws
        -> (words: Words, request: Household.Bills.Create.Request)
    {
        var validation = Validation()
        let words = Self.words(title: request.title, date: request.date, category: request.category, note: request.note, validation: &validation)
        Self.checkAmount(request.amount, "data.amount", validation: &validation)
        try validation.finish()
        return (words, request)
    }

    @Sendable
    func create(_ prepared: (words: Words, request: Household.Bills.Create.Request), _ context: RequestContext,
                on connection: PostgresConnection) async throws -> Household.Bill {
        let (words, request) = prepared
        let member = try await access.member(of: request.householdId, context, on: connection)
        try await bills.lockMoney(member.household, on: connection)
        let current = try await households.currentMembers(of: member.household, on: connection)
        let allowed = Set(current)
        let payer = try Self.member(request.paidBy, "data.paidBy", default: member.member, among: allowed)
        let parts = try Self.parts(request.parts, "data.parts", default: current, among: allowed)
        let split = request.split ?? .equal
        let receipt = try Self.photo(request.receiptPhotoId, "data.receiptPhotoId")
        if request.repeats != nil { try checkRepeatable(words.date ?? today()) }
        let values = BillStore.Values(
            title: words.title!, amount: request.amount, paidBy: payer, date: words.date ?? today(), category: words.category, note: words.note,
            split: split, parts: try Self.worked(request.amount, split, parts), repeats: request.repeats, receipt: receipt)
        // The receipt is checked and named first: the bill's row refers to it.
        let id = UUID()
        if let receipt { try await photos.attach([receipt], to: .bill, id, in: member.household, field: "data.receiptPhotoId", on: connection) }
        _ = try await bills.create(values, in: member.household, by: member.member, id: id, on: connection)
        return try await recorded(id, member.household, by: member.member, on: connection)
    }

    /// A trip's bought items, each with its price, become one bill the caller paid: a personal
    /// item is its owner's, a communal item is shared equally by those who belong now.
    @Sendable
    func prepareFromPurchases(_ request: Household.Bills.FromPurchases.Request, _ context: RequestContext) async throws
        -> (words: Words, items: [UUID], request: Household.Bills.FromPurchases.Request)
    {
        var validation = Validation()
        let words = Self.words(title: request.title, date: request.date, category: nil, note: nil, validation: &validation)
        let items = request.itemIds.compactMap(UUID.init(uuidString:))
        validation.check(items.count == request.itemIds.count && Set(items).count == items.count, "data.itemIds", "must be distinct item ids")
        validation.check((1...Household.Bounds.itemsPerList).contains(items.count), "data.itemIds", "must name 1 to \(Household.Bounds.itemsPerList) items")
        try validation.finish()
        return (words, items, request)
    }

    @Sendable
    func fromPurchases(_ prepared: (words: Words, items: [UUID], request: Household.Bills.FromPurchases.Request), _ context: RequestContext,
                       on connection: PostgresConnection) async throws -> Household.Bill {
        let member = try await access.member(of: prepared.request.householdId, context, on: connection)
        try await bills.lockMoney(member.household, on: connection)
        let current = try await households.currentMembers(of: member.household, on: connection)
        var owed: [UUID: Int64] = [:]
        var currency: Currency?
        for (index, id) in prepared.items.enumerated() {
            let field = "data.itemIds[\(index)]"
            guard let item = try await groceries.item(id, of: member.household, locking: true, on: connection),
                  !item.view.private || item.owner == member.member
            else { throw OperationError(.notFound, "\(field): there is no such item you can see", fields: [.init(field: field, message: "is not an item you can see")]) }
            guard let bought = item.view.bought, bought.memberId == HouseholdStore.text(member.member), let price = bought.price else {
                throw OperationError.invalid(field: field, "is not an item you bought with a price")
            }
            guard item.billId == nil else { throw OperationError.invalid(field: field, "is on a bill already") }
            guard currency == nil || currency == price.currency else { throw OperationError.invalid(field: field, "is priced in another currency") }
            currency = price.currency
            if let owner = item.owner {
                owed[owner, default: 0] += price.minorUnits
            } else {
                for (sharer, share) in zip(current, try price.split(into: current.count)) { owed[sharer, default: 0] += share.minorUnits }
            }
        }
        let total = Money(minorUnits: owed.values.reduce(0, +), currency: currency ?? .eur)
        var validation = Validation()
        Self.checkAmount(total, "data.itemIds", validation: &validation)
        try validation.finish()
        let everyone = try await households.everyMember(of: member.household, on: connection)
        let parts = owed.filter { $0.value > 0 && everyone.contains($0.key) }.sorted { $0.key.uuidString < $1.key.uuidString }
            .map { BillStore.Values.Part(member: $0.key, value: $0.value, share: $0.value) }
        let values = BillStore.Values(
            title: prepared.words.title!, amount: total, paidBy: member.member, date: prepared.words.date ?? today(), category: "Groceries", note: nil,
            split: .exact, parts: parts, repeats: nil)
        let id = try await bills.create(values, in: member.household, by: member.member, fromTrip: true, on: connection)
        try await groceries.attach(prepared.items, to: id, on: connection)
        return try await recorded(id, member.household, by: member.member, on: connection)
    }

    // MARK: Reads

    @Sendable
    func list(_ request: Household.Bills.List.Request, _ context: RequestContext) async throws -> Household.Bills.List.Response {
        let limit = try request.page.checked()
        return try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let rows = try await bills.list(of: member.household, deleted: request.deleted ?? false, limit: limit, before: request.after, on: connection)
            return .init(bills: rows.map(\.view), nextAfter: rows.count == limit ? rows.last?.seq : nil)
        }
    }

    @Sendable
    func get(_ request: Household.Bills.Reference, _ context: RequestContext) async throws -> Household.Bill {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            return try await bill(request.billId, of: member.household, on: connection).view
        }
    }

    // MARK: Changes

    @Sendable
    func update(_ request: Household.Bills.Update.Request, _ context: RequestContext) async throws -> Household.Bill {
        var validation = Validation()
        let words = Self.words(title: request.title, date: request.date, category: request.category, note: request.note, validation: &validation)
        if let amount = request.amount { Self.checkAmount(amount, "data.amount", validation: &validation) }
        try validation.finish()
        return try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            try await bills.lockMoney(member.household, on: connection)
            let old = try await bill(request.billId, of: member.household, on: connection)
            guard old.view.version == request.version else {
                throw OperationError.staleVersion(of: old.view, read: request.version, current: old.view.version, "bill")
            }
            // Who may be named: those who belong now, and those the bill named before.
            let allowed = Set(try await households.currentMembers(of: member.household, on: connection))
                .union(old.values.parts.map(\.member)).union([old.values.paidBy])
            var values = old.values
            values.title = words.title ?? values.title
            values.date = words.date ?? values.date
            if request.category != nil { values.category = words.category }
            if request.note != nil { values.note = words.note }
            values.paidBy = try Self.member(request.paidBy, "data.paidBy", default: values.paidBy, among: allowed)
            values.amount = request.amount ?? values.amount
            values.repeats = request.repeats ?? values.repeats
            if request.stopRepeating == true { values.repeats = nil }
            if values.repeats != nil, request.repeats != nil || request.date != nil { try checkRepeatable(values.date) }
            let split = request.split ?? values.split
            let parts = try Self.parts(
                request.parts, "data.parts", default: values.parts.map(\.member), among: allowed,
                keeping: request.parts == nil && split == values.split ? values.parts.map(\.value) : nil)
            values.split = split
            values.parts = try Self.worked(values.amount, split, parts)
            if let receipt = try Self.photo(request.receiptPhotoId, "data.receiptPhotoId"), receipt != old.values.receipt {
                try await photos.attach([receipt], to: .bill, old.view.id.uuid, in: member.household, field: "data.receiptPhotoId", on: connection)
                values.receipt = receipt
            }
            let fields = values.changedFields(from: old.values)
            guard !fields.isEmpty || request.stopRepeating == true else { return old.view }
            _ = try await bills.update(
                old.view.id.uuid, version: request.version, to: values, fields: fields, stopRepeating: request.stopRepeating == true, by: member.member,
                on: connection)
            if values.receipt != old.values.receipt {
                try await photos.deleteAttached(to: .bill, old.view.id.uuid, keeping: values.receipt.map { [$0] } ?? [], on: connection)
            }
            return try await bill(request.billId, of: member.household, on: connection).view
        }
    }

    @Sendable
    func delete(_ request: Household.Bills.Reference, _ context: RequestContext) async throws -> Household.Bill {
        try await setDeleted(request, true, context)
    }

    @Sendable
    func restore(_ request: Household.Bills.Reference, _ context: RequestContext) async throws -> Household.Bill {
        try await setDeleted(request, false, context)
    }

    private func setDeleted(_ request: Household.Bills.Reference, _ deleted: Bool, _ context: RequestContext) async throws -> Household.Bill {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            try await bills.lockMoney(member.household, on: connection)
            let old = try await bill(request.billId, of: member.household, on: connection)
            _ = try await bills.setDeleted(old.view.id.uuid, deleted, by: member.member, on: connection)
            return try await bill(request.billId, of: member.household, on: connection).view
        }
    }

    // MARK: Repeating bills

    /// Adds the copies of repeating bills that are due by today (a round of at most 100), in the
    /// job's transaction; returns how many. A copy does not repeat itself: the first bill carries
    /// the schedule, and a month missed (the service down) is added late, not skipped. A copy is
    /// shared by those of the bill's members who still belong; one whose payer left stops repeating.
    func addDueCopies(on connection: PostgresConnection) async throws -> Int {
        var added = 0
        for (id, household, day) in try await bills.dueRepeats(by: today(), limit: 100, on: connection) {
            try await bills.lockMoney(household, on: connection)
            guard let original = try await bills.bill(id, of: household, on: connection) else { continue }
            // Months from the bill's own day, so the 31st stays the 31st after a shorter month.
            var months = 1
            while CalendarDay.adding(months: months, to: original.values.date) <= day { months += 1 }
            // Only the transaction that moves this day on adds its copy.
            guard try await bills.advanceRepeat(id, from: day, to: CalendarDay.adding(months: months, to: original.values.date), on: connection)
            else { continue }
            let current = Set(try await households.currentMembers(of: household, on: connection))
            guard current.contains(original.values.paidBy) else {
                // Its payer left: nobody pays it on for the others any more.
                try await bills.stopRepeating(id, on: connection)
                continue
            }
            var copy = original.values
            copy.date = day
            copy.repeats = nil
            copy.receipt = nil
            // Who left shares the copies no more: the others share them equally.
            let staying = copy.parts.map(\.member).filter(current.contains)
            if staying.count != copy.parts.count, !staying.isEmpty {
                copy.split = .equal
                copy.parts = try Self.worked(copy.amount, .equal, staying.map { (member: $0, value: nil) })
            }
            let copied = try await bills.create(copy, in: household, by: original.view.createdBy.uuid, on: connection)
            guard let row = try await bills.bill(copied, of: household, on: connection) else { continue }
            try await tellDebtors(of: row, in: household, except: nil, on: connection)
            added += 1
        }
        return added
    }

    // MARK: Steps

    private func today() -> String { CalendarDay.text(database.now()) }

    /// A repeating bill's day is within the last 31 days (or later): its copies start next month,
    /// not in a burst of every month since.
    private func checkRepeatable(_ date: String) throws(OperationError) {
        guard date >= CalendarDay.adding(-31, to: today()) else {
            throw OperationError.invalid(field: "data.date", "a repeating bill's day is within the last 31 days")
        }
    }

    private func bill(_ id: String, of household: UUID, on connection: PostgresConnection) async throws -> BillStore.Row {
        guard let id = UUID(uuidString: id), let row = try await bills.bill(id, of: household, on: connection) else { throw Self.notFound }
        return row
    }

    /// The new bill as its GET answers it, its debtors told.
    private func recorded(_ id: UUID, _ household: UUID, by member: UUID, on connection: PostgresConnection) async throws -> Household.Bill {
        guard let row = try await bills.bill(id, of: household, on: connection) else { throw Self.notFound }
        try await tellDebtors(of: row, in: household, except: member, on: connection)
        return row.view
    }

    private func tellDebtors(of bill: BillStore.Row, in household: UUID, except member: UUID?, on connection: PostgresConnection) async throws {
        let debtors = bill.values.parts.filter { $0.member != bill.values.paidBy && $0.share > 0 }.map(\.member)
        guard !debtors.isEmpty else { return }
        try await notifier.tell(
            .billCreated, .init(household: household, resource: "bill", id: bill.view.id.uuid),
            except: member, only: debtors, title: "New bill: \(bill.values.title)", body: "\(bill.values.amount), see your share in the app",
            on: connection)
    }

    /// The photo id `raw` names (nil when absent); `invalid` naming `field` when it is not an id.
    static func photo(_ raw: String?, _ field: String) throws(OperationError) -> UUID? {
        guard let raw else { return nil }
        guard let id = UUID(uuidString: raw) else { throw OperationError.invalid(field: field, "must be a photo id") }
        return id
    }

    /// `raw` as a member among `allowed`, `fallback` when absent.
    static func member(_ raw: String?, _ field: String, default fallback: UUID, among allowed: Set<UUID>) throws(OperationError) -> UUID {
        guard let raw else { return fallback }
        guard let member = UUID(uuidString: raw), allowed.contains(member) else {
            throw OperationError.invalid(field: field, "is not a member of the household")
        }
        return member
    }

    /// The parts asked for, each naming a member among `allowed`; absent, `fallback`'s members
    /// (with `keeping`'s values, else none).
    static func parts(_ raw: [Household.BillPart]?, _ field: String, default fallback: [UUID], among allowed: Set<UUID>,
                      keeping values: [Int64?]? = nil) throws(OperationError) -> [(member: UUID, value: Int64?)] {
        guard let raw else { return fallback.enumerated().map { (member: $1, value: values?[$0]) } }
        var validation = Validation()
        var parts: [(member: UUID, value: Int64?)] = []
        for (index, part) in raw.enumerated() {
            if let member = UUID(uuidString: part.memberId), allowed.contains(member) {
                parts.append((member, part.value))
            } else {
                validation.fail("\(field)[\(index)].memberId", "is not a member of the household")
            }
        }
        validation.check(Household.Bounds.billParts.contains(raw.count), field, "must name 1 to \(Household.Bounds.billParts.upperBound) members")
        try validation.finish()
        return parts
    }

    static func worked(_ amount: Money, _ split: Household.SplitMethod, _ parts: [(member: UUID, value: Int64?)]) throws(OperationError)
        -> [BillStore.Values.Part]
    {
        zip(parts, try BillSplit.shares(of: amount, split, parts)).map { .init(member: $0.member, value: $0.value, share: $1.amount.minorUnits) }
    }

    static func checkAmount(_ amount: Money, _ field: String, validation: inout Validation) {
        validation.check(
            (1...Household.Bounds.priceMinorUnits).contains(amount.minorUnits), field + ".minorUnits",
            "must be from 1 to \(Household.Bounds.priceMinorUnits)")
    }

    static func words(title: String?, date: String?, category: String?, note: String?, validation: inout Validation) -> Words {
        var words = Words()
        if let title {
            words.title = title.trimmingCharacters(in: .whitespaces)
            validation.checkName(words.title!, "data.title")
        }
        if let date {
            let day = CalendarDay.date(date)
            validation.check(day.map { (2000...2200).contains(CalendarDay.calendar.component(.year, from: $0)) } ?? false, "data.date", "must be a day: YYYY-MM-DD")
            words.date = date
        }
        words.category = validation.checkText(category, "data.category", Household.Bounds.category)
        words.note = validation.checkText(note, "data.note", Household.Bounds.note, newlines: true)
        return words
    }
}
