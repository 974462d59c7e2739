import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// `payments.settle-ups.*`: a household member pays another what they owe, from the household app,
/// through the same processor path as a donation (`DonationHandlers`: recorded first, its
/// PaymentIntent stored before it is confirmed, held by one caller at a time, swept, reconciled).
/// household says first whether the payer owes that much; once the processor took the money it is
/// posted to the member paid's account (held for them: payouts are out of scope) and household is
/// told through the outbox, in the same transaction, so the settlement is recorded once.
struct SettleUpHandlers: Sendable {
    let database: Database
    let donations: DonationStore
    let charges: DonationHandlers

    static let notFound = OperationError(
        .notFound, "data.settleUpId: you made no such payment", fields: [.init(field: "data.settleUpId", message: "is not one of your payments")])
    static let notApp = OperationError(.forbidden, "debts are paid in the app from the household app")

    /// The caller: a signed-in account in a session of the household app.
    static func caller(_ context: RequestContext) throws(OperationError) -> UUID {
        let account = try context.attributes.signedInAccount(for: "payments in the household app")
        guard context.attributes.app == ClientApp.household.rawValue else { throw notApp }
        return account
    }

    @Sendable
    func create(_ request: Payments.SettleUps.Create.Request, _ context: RequestContext) async throws -> Payments.SettleUp {
        let key = try DonationHandlers.clientKey(context, for: "a payment")
        let caller = try Self.caller(context)
        var validation = Validation()
        DonationHandlers.checkAmount(request.amount, &validation)
        try validation.finish()
        // Ids as ids: one household or member however its id is written (the lock and the key's fingerprint name them).
        guard let household = UUID(uuidString: request.householdId) else { throw OperationError.invalid(field: "data.householdId", "must be a household id") }
        guard let payeeMember = UUID(uuidString: request.to) else { throw OperationError.invalid(field: "data.to", "must be a member id") }
        let (householdText, payeeText) = (CampaignStore.text(household), CampaignStore.text(payeeMember))
        let fingerprint = DonationHandlers.fingerprint("settle-up|\(householdText)|\(payeeText)|\(request.amount.minorUnits)|\(request.paymentMethod)")
        guard let bus = context.bus else { throw OperationError(.unavailable, "household cannot be asked from here") }
        let record = try await database.transaction { connection -> DonationStore.Record in
            // A repeat resumes its payment without asking household again (the debt it paid is gone by then).
            if let earlier = try await charges.earlier(of: caller, key: key, fingerprint: fingerprint, on: connection) { return earlier }
            // One new payment at a time per payer and household, asked of household and counted
            // against what is owed together: two at once, or one while an earlier one has not reached
            // household yet, never pay one debt twice. What is under way is read before household is
            // asked: one delivered in between is then subtracted twice (a refusal), never not at all.
            try await database.lockForTransaction("settle-up/\(householdText)/\(CampaignStore.text(caller))", on: connection)
            try await charges.limit(caller, context, on: connection)
            let underWay = try await donations.settleUpsUnderWay(from: caller, to: payeeMember, in: household, on: connection)
            let payable = try await bus.call(
                Household.Settlements.Payable.self, .init(householdId: householdText, account: CampaignStore.text(caller), to: payeeText, amount: request.amount),
                options: context.onwards(timeout: .seconds(5)))
            guard let payer = UUID(uuidString: payable.from), let payee = UUID(uuidString: payable.payee) else {
                throw OperationError(.internal, "household answered with ids that are not ids")
            }
            guard request.amount.minorUnits <= payable.owed.minorUnits - underWay else {
                throw OperationError.invalid(
                    field: "data.amount",
                    "is more than you owe them once your payments under way count: \(Money(minorUnits: max(payable.owed.minorUnits - underWay, 0), currency: Payments.currency))")
            }
            let charge = DonationStore.Charge(processor: charges.processor.name, paymentMethod: request.paymentMethod, clientKey: key, fingerprint: fingerprint)
            let parties = DonationStore.SettleUpParties(household: household, payer: caller, payerMember: payer, payee: payee, payeeMember: payeeMember)
            let id = try await donations.open(settleUp: parties, gross: request.amount.minorUnits, charge: charge, on: connection)
            guard let record = try await donations.record(id, on: connection) else { throw OperationError(.unavailable, "try again") }
            return record
        }
        return try await charges.drive(record, logger: context.logger).settleUp
    }

    @Sendable
    func get(_ request: Payments.SettleUpReference, _ context: RequestContext) async throws -> Payments.SettleUp {
        try await charges.current(try await owned(request.settleUpId, context), logger: context.logger).settleUp
    }

    @Sendable
    func finish(_ request: Payments.SettleUpReference, _ context: RequestContext) async throws -> Payments.SettleUp {
        try await charges.drive(try await owned(request.settleUpId, context), logger: context.logger).settleUp
    }

    /// The caller's settle-up `reference`, or `notFound`.
    private func owned(_ reference: String, _ context: RequestContext) async throws -> DonationStore.Record {
        let caller = try Self.caller(context)
        return try await database.transaction { connection in
            guard let id = UUID(uuidString: reference), let record = try await donations.record(id, on: connection), record.donor == caller,
                  record.household != nil
            else { throw Self.notFound }
            return record
        }
    }

    /// Tells household, through the outbox in the transaction that posts it, that settle-up `record`
    /// succeeded: it records the settlement, confirmed, once however often it is told.
    static func tellHousehold(_ record: DonationStore.Record, database: Database, on connection: PostgresConnection) async throws {
        guard let household = record.household, let payer = record.payerMember, let payee = record.payeeMember else { return }
        let paid = Household.Settlements.Paid.Request(
            householdId: CampaignStore.text(household), paymentId: CampaignStore.text(record.id), from: CampaignStore.text(payer),
            to: CampaignStore.text(payee), amount: CampaignStore.euros(record.gross))
        try await database.enqueue(Household.Settlements.Paid.self, paid, on: connection, idempotencyKey: DonationStore.householdKey(of: record.id))
    }
}
