import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// `household.balances.*` and `household.settlements.*`: who owes whom, reminders to debtors, and
/// payments between members that settle debt.
struct SettleHandlers: Sendable {
    let database: Database
    let bills: BillStore
    let settlements: SettlementStore
    let households: HouseholdStore
    let access: HouseholdAccess
    let notifier: HouseholdNotifier

    /// Reminders one debtor gets on demand in a day, whoever asks.
    static let reminders = RateLimit(
        "household.debt-reminders", count: 1, per: .seconds(86_400), .fixed, message: "this member was reminded today already; try again tomorrow")

    static let notFound = OperationError(
        .notFound, "data.settlementId: the household has no such settlement",
        fields: [.init(field: "data.settlementId", message: "is not one of the household's settlements")])

    // MARK: Balances

    @Sendable
    func balances(_ request: Household.Reference, _ context: RequestContext) async throws -> Household.Balances.Get.Response {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let simplify = try await households.simplifiesDebts(member.household, on: connection)
            let ledgers = try await bills.ledgers(of: member.household, on: connection)
            return .init(currencies: Self.balances(ledgers, simplify: simplify), simplified: simplify)
        }
    }

    /// The balances and settling transfers of each currency, by currency code.
    static func balances(_ ledgers: [Currency: Ledger], simplify: Bool) -> [Household.CurrencyBalances] {
        ledgers.sorted { $0.key.code < $1.key.code }.compactMap { currency, ledger in
            let net = ledger.balances
            guard !net.isEmpty else { return nil }
            let transfers = simplify ? Ledger.simplified(net) : ledger.pairwise
            return Household.CurrencyBalances(
                currency: currency,
                members: net.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.uuidString < $1.key.uuidString }
                    .map { .init(memberId: HouseholdStore.text($0.key), net: Money(minorUnits: $0.value, currency: currency)) },
                transfers: transfers.map {
                    .init(from: HouseholdStore.text($0.from), to: HouseholdStore.text($0.to), amount: Money(minorUnits: $0.amount, currency: currency))
                })
        }
    }

    // MARK: Reminders

    @Sendable
    func remind(_ request: Household.Balances.Remind.Request, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> Household.Balances.Remind.Response
    {
        let member = try await access.member(of: request.householdId, context, on: connection)
        let simplify = try await households.simplifiesDebts(member.household, on: connection)
        let owing = Self.debts(to: member.member, in: try await bills.ledgers(of: member.household, on: connection), simplify: simplify)
        var debtors = owing.keys.sorted { $0.uuidString < $1.uuidString }
        if let raw = request.memberId {
            guard let debtor = UUID(uuidString: raw), owing[debtor] != nil else {
                throw OperationError.invalid(field: "data.memberId", "owes you nothing")
            }
            debtors = [debtor]
        }
        var reminded = 0
        var refusal: OperationError?
        for debtor in debtors {
            do {
                try await database.hit(Self.reminders, [.other("\(member.household)/\(debtor)")], at: database.now(), on: connection)
            } catch let error as OperationError where error.code == .rateLimited {
                refusal = error
                continue
            }
            let amounts = owing[debtor, default: []].map(\.description).joined(separator: " and ")
            reminded += try await notifier.tell(
                .debtReminder, .init(household: member.household, resource: "balances", id: member.household), except: member.member, only: [debtor], listed: false,
                title: "A reminder from your household", body: "You owe a roommate \(amounts). Settle up in the app.", on: connection)
        }
        if reminded == 0, let refusal { throw refusal }
        return .init(reminded: reminded)
    }

    /// Reminds each member who owes money, once a week while they do (a round of at most 200
    /// households, in the job's transaction); returns how many were reminded. A member first seen
    /// owing starts their week then; one who settled is forgotten.
    func remindWeekly(on connection: PostgresConnection) async throws -> Int {
        let weekAgo = database.ago(.seconds(7 * 86_400))
        // Forget who owes nobody any more; look at the households with someone owing who was not
        // seen (or reminded) in the last week.
        try await connection.query(
            """
            DELETE FROM weekly_reminders w
            WHERE NOT EXISTS (SELECT 1 FROM debts d WHERE d.household_id = w.household_id AND d.debtor = w.member_id AND d.amount > 0)
            """,
            logger: database.logger)
        let households = try await connection.query(
            """
            SELECT DISTINCT d.household_id FROM debts d
            LEFT JOIN weekly_reminders w ON w.household_id = d.household_id AND w.member_id = d.debtor
            WHERE d.amount > 0 AND (w.last_at IS NULL OR w.last_at <= \(weekAgo)) LIMIT 200
            """,
            logger: database.logger
        ).decode(UUID.self).reduce(into: [UUID]()) { $0.append($1) }
        var reminded = 0
        for household in households {
            try await bills.lockMoney(household, on: connection)
            var owing: [UUID: [Money]] = [:]
            for (currency, ledger) in try await bills.ledgers(of: household, on: connection).sorted(by: { $0.key.code < $1.key.code }) {
                for (member, net) in ledger.balances where net < 0 { owing[member, default: []].append(Money(minorUnits: -net, currency: currency)) }
            }
            for (debtor, amounts) in owing.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
                let due = try await connection.query(
                    """
                    INSERT INTO weekly_reminders (household_id, member_id, last_at) VALUES (\(household), \(debtor), \(database.now()))
                    ON CONFLICT (household_id, member_id) DO UPDATE SET last_at = EXCLUDED.last_at WHERE weekly_reminders.last_at <= \(weekAgo)
                    RETURNING (xmax <> 0)
                    """,
                    logger: database.logger
                ).decode(Bool.self).reduce(false) { $0 || $1 }
                guard due else { continue }
                reminded += try await notifier.tell(
                    .debtReminder, .init(household: household, resource: "balances", id: household), except: nil, only: [debtor], listed: false,
                    title: "Your weekly balance", body: "You owe \(amounts.map(\.description).joined(separator: " and ")). Settle up in the app.",
                    on: connection)
            }
            // Whoever owes in a pair but not overall is looked at again in a week, not every hour.
            try await connection.query(
                """
                INSERT INTO weekly_reminders (household_id, member_id, last_at)
                SELECT DISTINCT household_id, debtor, \(database.now()) FROM debts WHERE household_id = \(household) AND amount > 0
                ON CONFLICT (household_id, member_id) DO UPDATE SET last_at = EXCLUDED.last_at WHERE weekly_reminders.last_at <= \(weekAgo)
                """,
                logger: database.logger)
        }
        return reminded
    }

    /// What each member owes `creditor`, per currency, as the balances screen shows it.
    static func debts(to creditor: UUID, in ledgers: [Currency: Ledger], simplify: Bool) -> [UUID: [Money]] {
        var owing: [UUID: [Money]] = [:]
        for (currency, ledger) in ledgers.sorted(by: { $0.key.code < $1.key.code }) {
            for transfer in simplify ? Ledger.simplified(ledger.balances) : ledger.pairwise where transfer.to == creditor {
                owing[transfer.from, default: []].append(Money(minorUnits: transfer.amount, currency: currency))
            }
        }
        return owing
    }

    // MARK: Settlements

    @Sendable
    func prepareSettle(_ request: Household.Settlements.Create.Request, _ context: RequestContext) async throws
        -> (reference: String?, request: Household.Settlements.Create.Request)
    {
        var validation = Validation()
        BillHandlers.checkAmount(request.amount, "data.amount", validation: &validation)
        validation.check(request.from != nil || request.to != nil, "data.to", "is needed when from is absent: the member paid")
        let reference = validation.checkText(request.reference, "data.reference", 0...100)
        try validation.finish()
        return (reference, request)
    }

    @Sendable
    func settle(_ prepared: (reference: String?, request: Household.Settlements.Create.Request), _ context: RequestContext,
                on connection: PostgresConnection) async throws -> Household.Settlement {
        let request = prepared.request
        let member = try await access.member(of: request.householdId, context, on: connection)
        try await bills.lockMoney(member.household, on: connection)
        // Either side may be someone who left: a debt with them stays until settled.
        let everyone = try await households.everyMember(of: member.household, on: connection)
        let from = try BillHandlers.member(request.from, "data.from", default: member.member, among: everyone)
        let to = try BillHandlers.member(request.to, "data.to", default: member.member, among: everyone)
        guard from == member.member || to == member.member else {
            throw OperationError(.forbidden, "you record payments you made or received, not others'")
        }
        guard from != to else { throw OperationError.invalid(field: "data.to", "is the member paying") }
        let id = try await settlements.create(
            in: member.household, from: from, to: to, amount: request.amount, reference: prepared.reference, by: member.member, on: connection)
        guard let row = try await settlements.settlement(id, of: member.household, on: connection) else { throw Self.notFound }
        let other = from == member.member ? to : from
        try await notifier.tell(
            .settlementRecorded, .init(household: member.household, resource: "settlement", id: id), except: member.member, only: [other], listed: false,
            title: from == member.member ? "A roommate paid you \(request.amount)" : "A roommate recorded your payment of \(request.amount)",
            body: from == member.member ? "Confirm it when the money is there." : "It counts in your balance now.", on: connection)
        return row.view
    }

    @Sendable
    func confirm(_ request: Household.Settlements.Reference, _ context: RequestContext) async throws -> Household.Settlement {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            try await bills.lockMoney(member.household, on: connection)
            guard let id = UUID(uuidString: request.settlementId), let row = try await settlements.settlement(id, of: member.household, on: connection)
            else { throw Self.notFound }
            // The one paid confirms; for one who left (and can no longer), the owner does.
            let paidLeft = try await !households.currentMembers(of: member.household, on: connection).contains(row.to)
            guard row.to == member.member || (paidLeft && member.role == .owner) else {
                throw OperationError(.forbidden, "only the member paid (or, once they left, the owner) confirms a settlement")
            }
            _ = try await settlements.confirm(row, on: connection)
            guard let confirmed = try await settlements.settlement(id, of: member.household, on: connection) else { throw Self.notFound }
            return confirmed.view
        }
    }

    @Sendable
    func list(_ request: Household.Settlements.List.Request, _ context: RequestContext) async throws -> Household.Settlements.List.Response {
        let limit = try request.page.checked()
        return try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let rows = try await settlements.list(of: member.household, limit: limit, before: request.after, on: connection)
            return .init(settlements: rows.map(\.view), nextAfter: rows.count == limit ? rows.last?.seq : nil)
        }
    }
}
