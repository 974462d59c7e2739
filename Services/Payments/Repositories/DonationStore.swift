import Contracts
import Envelope
import Foundation
import HouseholdContract
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// `payments.donations`: each donation and what the ledger posted for it. A donation is posted
/// once, when it succeeds, whichever path learns of it first; each refund or dispute is posted once
/// under its own transfer id (made from the processor's id for it), never beyond what was given.
struct DonationStore: Sendable {
    let database: Database
    let ledger: Ledger

    /// How a donation is to be charged: by which processor, with what, under which client key.
    struct Charge: Sendable {
        let processor: String
        let paymentMethod: String
        let clientKey: String
        let fingerprint: String
    }

    /// Records a donation of `gross` cents from `donor` to `campaign` (not yet succeeded), to be
    /// charged as `charge` says; its id.
    func open(campaign: UUID, donor: UUID, anonymous: Bool, gross: Int64, charge: Charge? = nil, receiptEmail: String? = nil,
              on connection: PostgresConnection) async throws -> UUID {
        let id = UUID()
        try await connection.query(
            "INSERT INTO donor_keys (account_id, donor_key) VALUES (\(donor), \(UUID())) ON CONFLICT DO NOTHING", logger: database.logger)
        let karma = try await ledger.karmaAccount(of: donor, on: connection)
        try await connection.query(
            """
            INSERT INTO donations (id, campaign_id, donor_id, donor_key, donor_karma, anonymous, gross_minor, currency, created_at, updated_at,
                                   processor, payment_method, client_key, fingerprint, receipt_email)
            SELECT \(id), \(campaign), \(donor), donor_key, \(karma), \(anonymous), \(gross), \(Payments.currency.code), \(database.now()),
                   \(database.now()), \(charge?.processor ?? "sandbox"), \(charge?.paymentMethod), \(charge?.clientKey), \(charge?.fingerprint), \(receiptEmail)
            FROM donor_keys WHERE account_id = \(donor)
            """,
            logger: database.logger)
        return id
    }

    /// Who pays whom in a settle-up: the payer's account and the two members of the household.
    struct SettleUpParties: Sendable {
        let household: UUID
        let payer: UUID
        let payerMember: UUID
        let payee: UUID
        let payeeMember: UUID
    }

    /// Records a settle-up of `gross` cents (not yet succeeded), to be charged as `charge` says; its id.
    func open(settleUp parties: SettleUpParties, gross: Int64, charge: Charge, on connection: PostgresConnection) async throws -> UUID {
        let id = UUID()
        try await connection.query(
            "INSERT INTO donor_keys (account_id, donor_key) VALUES (\(parties.payer), \(UUID())) ON CONFLICT DO NOTHING", logger: database.logger)
        let funds = try await ledger.memberAccount(of: parties.payee, on: connection)
        try await connection.query(
            """
            INSERT INTO donations (id, household_id, donor_id, donor_key, payer_member, payee_member, payee_id, payee_funds, gross_minor, currency,
                                   created_at, updated_at, processor, payment_method, client_key, fingerprint)
            SELECT \(id), \(parties.household), \(parties.payer), donor_key, \(parties.payerMember), \(parties.payeeMember), \(parties.payee), \(funds),
                   \(gross), \(Payments.currency.code), \(database.now()), \(database.now()), \(charge.processor), \(charge.paymentMethod), \(charge.clientKey),
                   \(charge.fingerprint)
            FROM donor_keys WHERE account_id = \(parties.payer)
            """,
            logger: database.logger)
        return id
    }

    /// The outbox key that tells household of settle-up `id` (`SettleUpHandlers.tellHousehold`): a
    /// settle-up whose row with it waits is still under way.
    static func householdKey(of id: UUID) -> String { settleUpKeyPrefix + CampaignStore.text(id) }
    private static let settleUpKeyPrefix = "settle-up-"

    /// What `payer`'s settle-ups to member `payee` of `household` that household does not know of
    /// yet hold, in cents: those with the processor (waiting for the payer's 3-D Secure for an hour
    /// at most), and those that succeeded while the outbox has not delivered them
    /// (`SettleUpHandlers.tellHousehold`).
    func settleUpsUnderWay(from payer: UUID, to payee: UUID, in household: UUID, on connection: PostgresConnection) async throws -> Int64 {
        let rows = try await connection.query(
            """
            SELECT COALESCE(sum(d.gross_minor), 0)::bigint FROM donations d
            WHERE d.household_id = \(household) AND d.donor_id = \(payer) AND d.payee_member = \(payee)
              AND (d.status = 'processing' OR (d.status = 'requires_action' AND d.updated_at > \(database.ago(.seconds(3_600))))
                   OR (d.status = 'succeeded' AND EXISTS (
                       SELECT 1 FROM outbox o WHERE o.idempotency_key = \(Self.settleUpKeyPrefix) || d.id::text AND o.delivered_at IS NULL)))
            """,
            logger: database.logger)
        return try await rows.decode(Int64.self).first { _ in true } ?? 0
    }

    /// Donation `id` succeeded with the processor keeping `fee` cents (nil: not known yet, posted as
    /// none and learnt later by `postLateFee`): posted to the ledger with its karma unless it was
    /// before. Whether it was posted now.
    @discardableResult
    func succeed(_ id: UUID, fee: Int64?, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            UPDATE donations d SET succeeded_at = \(database.now()), fee_minor = \(fee ?? 0), fee_known = \(fee != nil), status = 'succeeded', reason = NULL,
                updated_at = \(database.now()), held_until = NULL
            WHERE d.id = \(id) AND d.succeeded_at IS NULL
            RETURNING d.campaign_id, d.gross_minor, d.donor_karma, (SELECT c.owner_karma FROM campaigns c WHERE c.id = d.campaign_id), d.payee_funds
            """,
            logger: database.logger)
        guard let (campaign, gross, donorKarma, ownerKarma, payee) = try await rows.decode((UUID?, Int64, UUID?, UUID?, UUID?).self).first(where: { _ in true })
        else { return false }
        if let campaign, let donorKarma, let ownerKarma {
            let legs = Postings.donation(campaign: campaign, gross: gross, fee: fee ?? 0, donorKarma: donorKarma, ownerKarma: ownerKarma)
            return try await ledger.post(id, .donation, campaign: campaign, donation: id, legs: legs, on: connection)
        }
        guard let payee else { throw OperationError(.internal, "a charge for neither a campaign nor a household") }
        return try await ledger.post(id, .settleUp, campaign: nil, donation: id, legs: Postings.settleUp(gross: gross, fee: fee ?? 0, payee: payee), on: connection)
    }

    /// The fee of succeeded donation `id`, not known when it was posted, is `fee`: posted once as a
    /// transfer of its own. Whether it was posted now.
    @discardableResult
    func postLateFee(_ id: UUID, fee: Int64, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            UPDATE donations SET fee_minor = \(fee), fee_known = true WHERE id = \(id) AND NOT fee_known AND succeeded_at IS NOT NULL
            RETURNING campaign_id
            """,
            logger: database.logger)
        // A settle-up's fee too (no campaign): the processor's and the fees' accounts alone move.
        guard let campaign = try await rows.decode(UUID?.self).first(where: { _ in true }), fee > 0 else { return false }
        return try await ledger.post(Ledger.transfer(processor: "fee:\(id)"), .fee, campaign: campaign, donation: id, legs: Postings.lateFee(fee), on: connection)
    }

    /// Succeeded donations whose fee is not known yet, the oldest first.
    func feesUnknown(limit: Int, on connection: PostgresConnection) async throws -> [Record] {
        try await records("WHERE NOT fee_known AND succeeded_at IS NOT NULL ORDER BY succeeded_at LIMIT \(limit)", on: connection)
    }

    /// Gives `amount` cents of succeeded donation `id` back (a refund or a dispute), posted as transfer
    /// `transfer` once, with the karma it no longer earns. What the processor gave back is posted even
    /// when it is more than is left (a dispute of a partly refunded charge): only what is left, so
    /// the donation never goes below nothing. Nil when the donation has not succeeded or nothing is
    /// left; otherwise the amount posted now (0: posted before).
    func giveBack(_ id: UUID, amount: Int64, as kind: Ledger.TransferKind, transfer: UUID, on connection: PostgresConnection) async throws -> Int64? {
        let rows = try await connection.query(
            """
            SELECT d.campaign_id, d.gross_minor, d.returned_minor, d.donor_karma, c.owner_karma, d.payee_funds, d.succeeded_at IS NOT NULL,
                   d.household_id, d.payer_member, d.payee_member
            FROM donations d LEFT JOIN campaigns c ON c.id = d.campaign_id WHERE d.id = \(id) FOR UPDATE OF d
            """,
            logger: database.logger)
        guard let (campaign, gross, returned, donorKarma, ownerKarma, payee, succeeded, household, payer, paid) = try await rows
            .decode((UUID?, Int64, Int64, UUID?, UUID?, UUID?, Bool, UUID?, UUID?, UUID?).self).first(where: { _ in true }), succeeded
        else { return nil }
        if try await connection.query("SELECT 1 FROM ledger_transfers WHERE id = \(transfer)", logger: database.logger).decode(Int.self)
            .first(where: { _ in true }) != nil { return 0 }
        let posted = min(amount, gross - returned)
        guard posted > 0 else { return nil }
        if posted < amount {
            database.logger.warning("given back more than was left of a donation: the rest is posted", metadata: ["donation": "\(id)", "asked": "\(amount)", "posted": "\(posted)"])
        }
        let legs: [Ledger.Leg]
        if let campaign, let donorKarma, let ownerKarma {
            legs = Postings.giveBack(campaign: campaign, gross: gross, returned: returned, amount: posted, donorKarma: donorKarma, ownerKarma: ownerKarma)
        } else if let payee, let household, let payer, let paid {
            // The money went back to the payer's card: household records it the other way, so the debt is open again.
            database.logger.notice("a settle-up paid in the app was given back", metadata: ["settleUp": "\(id)", "kind": "\(kind.rawValue)", "amount": "\(posted)"])
            legs = Postings.settleUpGiveBack(amount: posted, payee: payee)
            let back = Household.Settlements.Paid.Request(
                householdId: CampaignStore.text(household), paymentId: CampaignStore.text(transfer), from: CampaignStore.text(paid), to: CampaignStore.text(payer),
                amount: CampaignStore.euros(posted), reference: kind == .dispute ? "Disputed with the card's bank" : "Given back to the card")
            try await database.enqueue(Household.Settlements.Paid.self, back, on: connection, idempotencyKey: "settle-up-back-\(CampaignStore.text(transfer))")
        } else {
            return nil
        }
        try await connection.query("UPDATE donations SET returned_minor = returned_minor + \(posted) WHERE id = \(id)", logger: database.logger)
        try await ledger.post(transfer, kind, campaign: campaign, donation: id, legs: legs, on: connection)
        return posted
    }
}
