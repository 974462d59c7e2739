import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import PostgresNIO
import PostgresSupport

/// `household.bills`, their parts and history, and the running `debts` they add to. Every change
/// runs in a transaction that holds the household's money lock (`lockMoney`), so the debts are
/// changed one transaction at a time.
struct BillStore: Sendable {
    let database: Database

    /// A bill as the handlers write it: its shares worked out.
    struct Values: Sendable, Equatable {
        var title: String
        var amount: Money
        var paidBy: UUID
        /// `YYYY-MM-DD`.
        var date: String
        var category: String?
        var note: String?
        var split: Household.SplitMethod
        var parts: [Part]
        var repeats: Household.Repeat?
        var receipt: UUID? = nil

        struct Part: Sendable, Equatable {
            let member: UUID
            let value: Int64?
            let share: Int64
        }

        /// The names of the fields that differ from `other`'s.
        func changedFields(from other: Values) -> [String] {
            var fields: [String] = []
            if title != other.title { fields.append("title") }
            if amount != other.amount { fields.append("amount") }
            if paidBy != other.paidBy { fields.append("paidBy") }
            if date != other.date { fields.append("date") }
            if category != other.category { fields.append("category") }
            if note != other.note { fields.append("note") }
            if split != other.split { fields.append("split") }
            if parts != other.parts { fields.append("parts") }
            if repeats != other.repeats { fields.append("repeats") }
            if receipt != other.receipt { fields.append("receiptPhotoId") }
            return fields
        }
    }

    /// A bill as stored, with what the handlers decide on.
    struct Row: Sendable {
        let view: Household.Bill
        let values: Values
        let seq: Int64
        let deleted: Bool
    }

    /// Holds `household`'s money lock for the transaction: its bills, settlements and debts change
    /// one transaction at a time.
    func lockMoney(_ household: UUID, on connection: PostgresConnection) async throws {
        try await database.lockForTransaction("household-money/" + household.uuidString, on: connection)
    }

    /// A new bill by `member`; returns its id.
    func create(_ values: Values, in household: UUID, by member: UUID, fromTrip: Bool = false, id: UUID = UUID(),
                on connection: PostgresConnection) async throws -> UUID {
        let now = database.now()
        let next = values.repeats.map { _ in CalendarDay.adding(months: 1, to: values.date) }
        try await connection.query(
            """
            INSERT INTO bills (id, household_id, title, amount_minor, currency, paid_by, bill_date, category, note, split, repeats, next_repeat,
                               from_trip, receipt_photo, created_by, created_at, updated_at)
            VALUES (\(id), \(household), \(values.title), \(values.amount.minorUnits), \(values.amount.currency.code), \(values.paidBy),
                    \(values.date)::date, \(values.category), \(values.note), \(values.split.rawValue), \(values.repeats?.rawValue), \(next)::date,
                    \(fromTrip), \(values.receipt), \(member), \(now), \(now))
            """,
            logger: database.logger)
        try await writeParts(values.parts, of: id, on: connection)
        try await record(.created, of: id, by: member, on: connection)
        try await applyDebts(of: id, sign: 1, on: connection)
        return id
    }

    /// Writes the bill's new values when it is at `version`; false when it moved on.
    func update(_ id: UUID, version: Int, to values: Values, fields: [String], stopRepeating: Bool, by member: UUID,
                on connection: PostgresConnection) async throws -> Bool {
        try await applyDebts(of: id, sign: -1, on: connection)
        let updated = try await connection.query(
            """
            UPDATE bills SET title = \(values.title), amount_minor = \(values.amount.minorUnits), currency = \(values.amount.currency.code),
                paid_by = \(values.paidBy), bill_date = \(values.date)::date, category = \(values.category), note = \(values.note),
                split = \(values.split.rawValue), receipt_photo = \(values.receipt),
                repeats = CASE WHEN \(stopRepeating) THEN NULL ELSE \(values.repeats?.rawValue) END,
                next_repeat = CASE WHEN \(stopRepeating) OR \(values.repeats?.rawValue)::text IS NULL THEN NULL
                                   WHEN next_repeat IS NULL OR bill_date <> \(values.date)::date THEN (\(values.date)::date + interval '1 month')::date
                                   ELSE next_repeat END,
                updated_at = \(database.now()), version = version + 1
            WHERE id = \(id) AND version = \(version)
            RETURNING 1
            """,
            logger: database.logger
        ).collect().count == 1
        if updated {
            try await connection.query("DELETE FROM bill_parts WHERE bill_id = \(id)", logger: database.logger)
            try await writeParts(values.parts, of: id, on: connection)
            try await record(.updated, of: id, by: member, fields: fields, on: connection)
        }
        try await applyDebts(of: id, sign: 1, on: connection)
        return updated
    }

    /// Deletes (or restores) the bill: it stops (or starts again) counting; false when it already was.
    func setDeleted(_ id: UUID, _ deleted: Bool, by member: UUID, on connection: PostgresConnection) async throws -> Bool {
        try await applyDebts(of: id, sign: -1, on: connection)
        let changed = try await connection.query(
            """
            UPDATE bills SET deleted_at = CASE WHEN \(deleted) THEN \(database.now()) END, updated_at = \(database.now()), version = version + 1
            WHERE id = \(id) AND (deleted_at IS NOT NULL) <> \(deleted) RETURNING 1
            """,
            logger: database.logger
        ).collect().count == 1
        if changed { try await record(deleted ? .deleted : .restored, of: id, by: member, on: connection) }
        try await applyDebts(of: id, sign: 1, on: connection)
        return changed
    }

    /// The bill `id` of `household`, with its history; nil when there is none.
    func bill(_ id: UUID, of household: UUID, on connection: PostgresConnection) async throws -> Row? {
        guard var row = try await rows("id = \(id) AND household_id = \(household)", on: connection).first else { return nil }
        var history: [Household.BillChange] = []
        let changes = try await connection.query(
            "SELECT member_id, at, action, fields FROM bill_changes WHERE bill_id = \(id) ORDER BY seq", logger: database.logger)
        for try await (member, at, action, fields) in changes.decode((UUID, Date, String, [String]?).self) {
            history.append(.init(
                memberId: HouseholdStore.text(member), at: at, action: Household.BillChange.Action(rawValue: action) ?? .updated, fields: fields))
        }
        var view = row.view
        view.history = history
        row = Row(view: view, values: row.values, seq: row.seq, deleted: row.deleted)
        return row
    }

    /// `household`'s bills (the deleted ones instead with `deleted`), the last recorded first.
    func list(of household: UUID, deleted: Bool, limit: Int, before: Int64?, on connection: PostgresConnection) async throws -> [Row] {
        try await rows(
            """
            household_id = \(household) AND (deleted_at IS NOT NULL) = \(deleted) AND seq < \(before ?? Int64.max) ORDER BY seq DESC LIMIT \(limit)
            """,
            on: connection)
    }

    /// What each debtor owes each creditor in `household`, per currency.
    func ledgers(of household: UUID, on connection: PostgresConnection) async throws -> [Currency: Ledger] {
        var ledgers: [Currency: Ledger] = [:]
        let rows = try await connection.query(
            "SELECT currency, debtor, creditor, amount FROM debts WHERE household_id = \(household) AND amount <> 0", logger: database.logger)
        for try await (code, debtor, creditor, amount) in rows.decode((String, UUID, UUID, Int64).self) {
            guard let currency = Currency(rawValue: code) else { continue }
            ledgers[currency, default: Ledger()].owe(debtor, creditor, amount)
        }
        return ledgers
    }

    /// Adds what a confirmed payment `from` → `to` changes to the debts.
    func applyPayment(in household: UUID, from: UUID, to: UUID, amount: Money, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO debts (household_id, currency, debtor, creditor, amount) VALUES (\(household), \(amount.currency.code), \(to), \(from), \(amount.minorUnits))
            ON CONFLICT (household_id, currency, debtor, creditor) DO UPDATE SET amount = debts.amount + EXCLUDED.amount
            """,
            logger: database.logger)
    }

    /// Repeating bills whose next copy is due by `today`, at most `limit`, oldest due first.
    func dueRepeats(by today: String, limit: Int, on connection: PostgresConnection) async throws -> [(id: UUID, household: UUID, due: String)] {
        try await connection.query(
            """
            SELECT id, household_id, to_char(next_repeat, 'YYYY-MM-DD') FROM bills
            WHERE repeats IS NOT NULL AND deleted_at IS NULL AND next_repeat <= \(today)::date ORDER BY next_repeat, id LIMIT \(limit)
            """,
            logger: database.logger
        ).decode((UUID, UUID, String).self).reduce(into: []) { $0.append((id: $1.0, household: $1.1, due: $1.2)) }
    }

    /// The bill's next copy is due on `next`; false when its next copy was not due on `due` (another
    /// round added it).
    func advanceRepeat(_ id: UUID, from due: String, to next: String, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query(
            """
            UPDATE bills SET next_repeat = \(next)::date
            WHERE id = \(id) AND next_repeat = \(due)::date AND repeats IS NOT NULL AND deleted_at IS NULL RETURNING 1
            """,
            logger: database.logger
        ).collect().count == 1
    }

    func stopRepeating(_ id: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE bills SET repeats = NULL, next_repeat = NULL WHERE id = \(id)", logger: database.logger)
    }

    // MARK: Steps

    /// Adds (`sign` 1) or takes back (-1) what the bill, if it counts, makes its members owe its payer.
    private func applyDebts(of bill: UUID, sign: Int64, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO debts (household_id, currency, debtor, creditor, amount)
            SELECT b.household_id, b.currency, p.member_id, b.paid_by, \(sign) * p.share_minor
            FROM bills b JOIN bill_parts p ON p.bill_id = b.id
            WHERE b.id = \(bill) AND b.deleted_at IS NULL AND p.member_id <> b.paid_by
            ON CONFLICT (household_id, currency, debtor, creditor) DO UPDATE SET amount = debts.amount + EXCLUDED.amount
            """,
            logger: database.logger)
    }

    /// The parts in one statement; a value is never negative, so -1 stands for none in the array.
    private func writeParts(_ parts: [Values.Part], of bill: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO bill_parts (bill_id, position, member_id, value, share_minor)
            SELECT \(bill), position - 1, member, NULLIF(value, -1), share
            FROM unnest(\(parts.map(\.member))::uuid[], \(parts.map { $0.value ?? -1 })::bigint[], \(parts.map(\.share))::bigint[]) WITH ORDINALITY
                AS p(member, value, share, position)
            """,
            logger: database.logger)
    }

    private func record(_ action: Household.BillChange.Action, of bill: UUID, by member: UUID, fields: [String]? = nil,
                        on connection: PostgresConnection) async throws {
        try await connection.query(
            "INSERT INTO bill_changes (bill_id, member_id, at, action, fields) VALUES (\(bill), \(member), \(database.now()), \(action.rawValue), \(fields))",
            logger: database.logger)
    }

    private func rows(_ condition: PostgresQuery, on connection: PostgresConnection) async throws -> [Row] {
        let query = PostgresQuery.select(
            """
            id, title, amount_minor, currency, paid_by, to_char(bill_date, 'YYYY-MM-DD'), category, note, split, repeats, from_trip,
            created_by, created_at, updated_at, deleted_at, version, seq, receipt_photo FROM bills
            """,
            where: condition)
        var bills: [(id: UUID, cells: PostgresRandomAccessRow)] = []
        for try await row in try await connection.query(query, logger: database.logger) {
            let cells = row.makeRandomAccess()
            bills.append((try cells[0].decode(UUID.self), cells))
        }
        var parts: [UUID: [Values.Part]] = [:]
        if !bills.isEmpty {
            let partRows = try await connection.query(
                "SELECT bill_id, member_id, value, share_minor FROM bill_parts WHERE bill_id = ANY(\(bills.map(\.id))) ORDER BY bill_id, position",
                logger: database.logger)
            for try await (bill, member, value, share) in partRows.decode((UUID, UUID, Int64?, Int64).self) {
                parts[bill, default: []].append(.init(member: member, value: value, share: share))
            }
        }
        return try bills.map { id, cells in
            func cell<T: PostgresDecodable>(_ index: Int, _ type: T.Type = T.self) throws -> T { try cells[index].decode(T.self) }
            let currency = Currency(rawValue: try cell(3, String.self)) ?? .eur
            let values = Values(
                title: try cell(1), amount: Money(minorUnits: try cell(2), currency: currency), paidBy: try cell(4), date: try cell(5),
                category: try cell(6), note: try cell(7), split: Household.SplitMethod(rawValue: try cell(8, String.self)) ?? .equal,
                parts: parts[id] ?? [], repeats: try cell(9, String?.self).flatMap(Household.Repeat.init(rawValue:)), receipt: try cell(17))
            let deletedAt = try cell(14, Date?.self)
            let view = Household.Bill(
                id: HouseholdStore.text(id), title: values.title, amount: values.amount, paidBy: HouseholdStore.text(values.paidBy), date: values.date,
                category: values.category, note: values.note, split: values.split,
                parts: values.parts.map { .init(memberId: HouseholdStore.text($0.member), value: $0.value) },
                shares: values.parts.map { .init(memberId: HouseholdStore.text($0.member), amount: Money(minorUnits: $0.share, currency: currency)) },
                repeats: values.repeats, fromTrip: try cell(10), receiptPhotoId: values.receipt.map(HouseholdStore.text), createdBy: HouseholdStore.text(try cell(11)), createdAt: try cell(12),
                updatedAt: try cell(13), deletedAt: deletedAt, version: try cell(15), history: nil)
            return Row(view: view, values: values, seq: try cell(16), deleted: deletedAt != nil)
        }
    }
}
