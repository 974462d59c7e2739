import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import PostgresNIO
import PostgresSupport

/// `household.settlements`: payments between members, counting in the debts once confirmed.
struct SettlementStore: Sendable {
    let database: Database
    let bills: BillStore

    struct Row: Sendable {
        let view: Household.Settlement
        let id: UUID
        let household: UUID
        let from: UUID
        let to: UUID
        let seq: Int64
    }

    /// A new settlement `from` → `to`, recorded by `member`; confirmed at once when `member` is the
    /// one paid. Returns its id.
    func create(in household: UUID, from: UUID, to: UUID, amount: Money, reference: String?, by member: UUID,
                on connection: PostgresConnection) async throws -> UUID {
        let id = UUID(), now = database.now(), confirmed = member == to ? now : nil
        try await connection.query(
            """
            INSERT INTO settlements (id, household_id, from_member, to_member, amount_minor, currency, reference, recorded_by, recorded_at, confirmed_at)
            VALUES (\(id), \(household), \(from), \(to), \(amount.minorUnits), \(amount.currency.code), \(reference), \(member), \(now), \(confirmed))
            """,
            logger: database.logger)
        if confirmed != nil { try await bills.applyPayment(in: household, from: from, to: to, amount: amount, on: connection) }
        return id
    }

    /// The settlement of payment `payment`, made in the app `from` → `to` and confirmed by the
    /// processor: recorded (by the payer) and counted at once, or found when it was before. Its id,
    /// and whether it was recorded now.
    func paid(_ payment: UUID, in household: UUID, from: UUID, to: UUID, amount: Money, reference: String = "Paid in the app", on connection: PostgresConnection)
        async throws
        -> (id: UUID, new: Bool)
    {
        let id = UUID(), now = database.now()
        let inserted = try await connection.query(
            """
            INSERT INTO settlements (id, household_id, from_member, to_member, amount_minor, currency, reference, recorded_by, recorded_at, confirmed_at,
                                     payment_id)
            VALUES (\(id), \(household), \(from), \(to), \(amount.minorUnits), \(amount.currency.code), \(reference), \(from), \(now), \(now), \(payment))
            ON CONFLICT (payment_id) DO NOTHING RETURNING id
            """,
            logger: database.logger
        ).collect().count == 1
        if inserted {
            try await bills.applyPayment(in: household, from: from, to: to, amount: amount, on: connection)
            return (id, true)
        }
        let earlier = try await connection.query("SELECT id FROM settlements WHERE payment_id = \(payment)", logger: database.logger).decode(UUID.self)
        for try await id in earlier { return (id, false) }
        throw OperationError(.unavailable, "the settlement of a payment was not found after its insert; try again")
    }

    /// Confirms the settlement; false when it was confirmed already.
    func confirm(_ row: Row, on connection: PostgresConnection) async throws -> Bool {
        let confirmed = try await connection.query(
            "UPDATE settlements SET confirmed_at = \(database.now()) WHERE id = \(row.id) AND confirmed_at IS NULL RETURNING 1",
            logger: database.logger
        ).collect().count == 1
        if confirmed { try await bills.applyPayment(in: row.household, from: row.from, to: row.to, amount: row.view.amount, on: connection) }
        return confirmed
    }

    func settlement(_ id: UUID, of household: UUID, on connection: PostgresConnection) async throws -> Row? {
        try await rows("id = \(id) AND household_id = \(household)", on: connection).first
    }

    /// `household`'s settlements, the last recorded first.
    func list(of household: UUID, limit: Int, before: Int64?, on connection: PostgresConnection) async throws -> [Row] {
        try await rows("household_id = \(household) AND seq < \(before ?? Int64.max) ORDER BY seq DESC LIMIT \(limit)", on: connection)
    }

    private func rows(_ condition: PostgresQuery, on connection: PostgresConnection) async throws -> [Row] {
        let query = PostgresQuery.select(
            "id, household_id, from_member, to_member, amount_minor, currency, reference, recorded_by, recorded_at, confirmed_at, seq, payment_id FROM settlements",
            where: condition)
        var rows: [Row] = []
        for try await row in try await connection.query(query, logger: database.logger) {
            let cells = row.makeRandomAccess()
            let (id, household, from, to) = (try cells[0].decode(UUID.self), try cells[1].decode(UUID.self), try cells[2].decode(UUID.self), try cells[3].decode(UUID.self))
            let amount = Money(minorUnits: try cells[4].decode(Int64.self), currency: Currency(rawValue: try cells[5].decode(String.self)) ?? .eur)
            let view = Household.Settlement(
                id: HouseholdStore.text(id), from: HouseholdStore.text(from), to: HouseholdStore.text(to), amount: amount,
                reference: try cells[6].decode(String?.self), recordedBy: HouseholdStore.text(try cells[7].decode(UUID.self)),
                recordedAt: try cells[8].decode(Date.self), confirmedAt: try cells[9].decode(Date?.self),
                paymentId: try cells[11].decode(UUID?.self).map(HouseholdStore.text))
            rows.append(Row(view: view, id: id, household: household, from: from, to: to, seq: try cells[10].decode(Int64.self)))
        }
        return rows
    }
}
