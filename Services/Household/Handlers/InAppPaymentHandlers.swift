import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import PostgresNIO
import PostgresSupport

/// `household.settlements.payable.v1` and `.paid.v1`: a member paying another in the app, through
/// `payments` (the one place where money moves). payments asks first whether the payment settles
/// a debt; once the processor took the money it says so through its outbox, and the payment is
/// recorded as a settlement confirmed at once, one per payment.
struct InAppPaymentHandlers: Sendable {
    let database: Database
    let bills: BillStore
    let settlements: SettlementStore
    let households: HouseholdStore
    let notifier: HouseholdNotifier

    @Sendable
    func payable(_ request: Household.Settlements.Payable.Request, _ context: RequestContext) async throws -> Household.Settlements.Payable.Response {
        guard let account = UUID(uuidString: request.account) else { throw OperationError.invalid(field: "data.account", "must be an account id") }
        return try await database.transaction { connection in
            guard let household = UUID(uuidString: request.householdId),
                  let member = try await households.membership(of: household, account: account, on: connection)
            else { throw HouseholdAccess.notFound }
            guard let to = UUID(uuidString: request.to), let payee = try await households.account(of: to, in: household, on: connection) else {
                throw OperationError.invalid(field: "data.to", "is not a member of the household")
            }
            guard to != member.member else { throw OperationError.invalid(field: "data.to", "is you: pay another member") }
            guard let payee else { throw OperationError.invalid(field: "data.to", "is a former member whose account is gone: they cannot be paid in the app") }
            let simplify = try await households.simplifiesDebts(household, on: connection)
            let owing = SettleHandlers.debts(to: to, in: try await bills.ledgers(of: household, on: connection), simplify: simplify)
            let owed = owing[member.member, default: []].first { $0.currency == request.amount.currency }?.minorUnits ?? 0
            guard owed > 0 else { throw OperationError.invalid(field: "data.to", "is owed nothing by you in \(request.amount.currency.code)") }
            guard request.amount.minorUnits <= owed else {
                throw OperationError.invalid(field: "data.amount", "is more than you owe them: \(Money(minorUnits: owed, currency: request.amount.currency))")
            }
            return .init(from: HouseholdStore.text(member.member), payee: HouseholdStore.text(payee), owed: Money(minorUnits: owed, currency: request.amount.currency))
        }
    }

    @Sendable
    func paid(_ request: Household.Settlements.Paid.Request, _ context: RequestContext) async throws -> Household.Settlements.Paid.Response {
        guard let household = UUID(uuidString: request.householdId), let payment = UUID(uuidString: request.paymentId),
              let from = UUID(uuidString: request.from), let to = UUID(uuidString: request.to)
        else { throw OperationError.invalid(field: "data", "names a household, a payment and two members by their ids") }
        return try await database.transaction { connection in
            // A household deleted since (its last member left): the money is held for the one paid all the same.
            guard try await households.lock(household, on: connection) else {
                context.logger.warning("a payment in the app for a household deleted since", metadata: ["payment": "\(payment)"])
                return .init(settlementId: nil)
            }
            try await bills.lockMoney(household, on: connection)
            let everyone = try await households.everyMember(of: household, on: connection)
            guard everyone.contains(from), everyone.contains(to), from != to else {
                throw OperationError.invalid(field: "data.to", "the payment names someone who is not a member of the household")
            }
            let settlement = try await settlements.paid(
                payment, in: household, from: from, to: to, amount: request.amount, reference: request.reference ?? "Paid in the app", on: connection)
            guard settlement.new else { return .init(settlementId: HouseholdStore.text(settlement.id)) }
            let target = HouseholdNotifier.Target(household: household, resource: "settlement", id: settlement.id)
            if request.reference == nil {
                try await notifier.tell(
                    .settlementRecorded, target, except: from, only: [to], listed: false,
                    title: "A roommate paid you \(request.amount)", body: "Paid in the app: it counts in your balance now.", on: connection)
            } else {
                // Money given back to the payer's card: both sides' balances move back.
                try await notifier.tell(
                    .settlementRecorded, target, except: nil, only: [from, to], listed: false,
                    title: "A payment in the app was given back", body: "\(request.amount) went back to the card it came from: the debt is open again.",
                    on: connection)
            }
            return .init(settlementId: HouseholdStore.text(settlement.id))
        }
    }
}
