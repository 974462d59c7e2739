import Contracts
import Envelope
import Foundation
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// A donation's way through the processor: found by the donor's client key, its PaymentIntent
/// stored before it is confirmed, settled once the processor says how it ended.
extension DonationStore {
    struct Record: Sendable {
        let id: UUID
        let seq: Int64
        /// The campaign given to; nil for a settle-up, which names its household.
        let campaign: UUID?
        let household: UUID?
        /// A settle-up's two members: who paid, and who was paid.
        let payerMember: UUID?
        let payeeMember: UUID?
        let donor: UUID?
        let gross: Int64
        /// Given back so far: refunds and disputes posted.
        let returned: Int64
        let anonymous: Bool
        let status: Payments.DonationStatus
        let reason: Payments.DeclineReason?
        let processor: String
        let paymentMethod: String?
        let intent: String?
        let fingerprint: String?
        let createdAt: Date
        let succeededAt: Date?
        /// How many times the processor answered a 5xx for it: its keys carry the count after the first.
        let keyRenewals: Int

        /// The idempotency key of its PaymentIntent's create, made from its id (a repeat makes the
        /// same intent), renewed after a 5xx (which Stripe answers again to every repeat under a key).
        var createKey: String { renewed("melon-donation-\(CampaignStore.text(id))") }
        /// The idempotency key of its PaymentIntent's confirm, renewed like `createKey`.
        var confirmKey: String { renewed("melon-donation-\(CampaignStore.text(id))-confirm") }

        private func renewed(_ key: String) -> String { keyRenewals == 0 ? key : "\(key)-\(keyRenewals)" }

        func view(nextAction: Payments.NextAction? = nil) -> Payments.Donation {
            Payments.Donation(
                id: CampaignStore.text(id), campaignId: campaign.map(CampaignStore.text) ?? "", amount: CampaignStore.euros(gross),
                returned: CampaignStore.euros(returned),
                anonymous: anonymous,
                status: status, reason: reason, nextAction: status == .requiresAction ? nextAction : nil, processor: processor, createdAt: createdAt,
                succeededAt: succeededAt)
        }

        func settleUpView(nextAction: Payments.NextAction? = nil) -> Payments.SettleUp {
            Payments.SettleUp(
                id: CampaignStore.text(id), householdId: household.map(CampaignStore.text) ?? "", to: payeeMember.map(CampaignStore.text) ?? "",
                amount: CampaignStore.euros(gross), status: status, reason: reason, nextAction: status == .requiresAction ? nextAction : nil,
                processor: processor, createdAt: createdAt, succeededAt: succeededAt)
        }
    }

    static let columns = """
        SELECT id, seq, campaign_id, household_id, payer_member, payee_member, donor_id, gross_minor, returned_minor, anonymous, status, reason, processor, payment_method, intent_id, fingerprint, created_at,
               succeeded_at, key_renewals FROM donations
        """

    func records(_ condition: PostgresQuery, on connection: PostgresConnection) async throws -> [Record] {
        var query = PostgresQuery(unsafeSQL: Self.columns + " ")
        query.sql += condition.sql
        query.binds = condition.binds
        let rows = try await connection.query(query, logger: database.logger)
            .decode((UUID, Int64, UUID?, UUID?, UUID?, UUID?, UUID?, Int64, Int64, Bool, String, String?, String, String?, String?, String?, Date, Date?, Int).self)
        var records: [Record] = []
        for try await (id, seq, campaign, household, payerMember, payeeMember, donor, gross, returned, anonymous, status, reason, processor, method, intent, fingerprint, created, succeeded, renewals) in rows {
            records.append(Record(
                id: id, seq: seq, campaign: campaign, household: household, payerMember: payerMember, payeeMember: payeeMember, donor: donor, gross: gross, returned: returned, anonymous: anonymous,
                status: Payments.DonationStatus(rawValue: status) ?? .processing, reason: reason.flatMap(Payments.DeclineReason.init(rawValue:)),
                processor: processor, paymentMethod: method, intent: intent, fingerprint: fingerprint, createdAt: created, succeededAt: succeeded,
                keyRenewals: renewals))
        }
        return records
    }

    func record(_ id: UUID, locking: Bool = false, on connection: PostgresConnection) async throws -> Record? {
        try await records(locking ? "WHERE id = \(id) FOR UPDATE" : "WHERE id = \(id)", on: connection).first
    }

    /// The donation paid by PaymentIntent `intent`, if it is ours.
    func record(paidBy intent: String, on connection: PostgresConnection) async throws -> Record? {
        try await records("WHERE intent_id = \(intent)", on: connection).first
    }

    /// `donor`'s donation under client key `key`, if they made one.
    func record(of donor: UUID, clientKey key: String, on connection: PostgresConnection) async throws -> Record? {
        try await records("WHERE donor_id = \(donor) AND client_key = \(key)", on: connection).first
    }

    /// `donor`'s donations (not their settle-ups), the newest first, below `before`.
    func mine(_ donor: UUID, before: Int64?, limit: Int, on connection: PostgresConnection) async throws -> [Record] {
        try await records("WHERE donor_id = \(donor) AND campaign_id IS NOT NULL AND (\(before)::bigint IS NULL OR seq < \(before)) ORDER BY seq DESC LIMIT \(limit)", on: connection)
    }

    /// Donations still processing and untouched since `before`: the sweep's work (not locked: the
    /// sweep settles each in a transaction of its own). A donation waiting for its donor's 3-D Secure
    /// waits for them.
    func unsettled(since before: Date, limit: Int, on connection: PostgresConnection) async throws -> [Record] {
        try await records(
            "WHERE status = 'processing' AND updated_at < \(before) AND (held_until IS NULL OR held_until <= \(database.now())) ORDER BY updated_at LIMIT \(limit)",
            on: connection)
    }

    /// Stores the PaymentIntent of donation `id` (before it is confirmed); the payment method is not
    /// needed any more and goes.
    func setIntent(_ id: UUID, _ intent: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            "UPDATE donations SET intent_id = \(intent), payment_method = NULL, updated_at = \(database.now()) WHERE id = \(id) AND intent_id IS NULL",
            logger: database.logger)
    }

    /// Holds donation `id` for one caller to take to the processor, for `lease` at most; the donation
    /// as it stands, or nil when another holds it (or it is settled).
    func hold(_ id: UUID, for lease: Duration, on connection: PostgresConnection) async throws -> Record? {
        let held = try await connection.query(
            """
            UPDATE donations SET held_until = \(database.later(lease)), updated_at = \(database.now())
            WHERE id = \(id) AND status IN ('processing', 'requires_action') AND (held_until IS NULL OR held_until <= \(database.now()))
            RETURNING 1
            """,
            logger: database.logger)
        guard try await held.decode(Int.self).first(where: { _ in true }) != nil else { return nil }
        return try await record(id, on: connection)
    }

    /// Renews the idempotency keys of donation `id`'s create and confirm: the processor answered a
    /// 5xx, which it answers again to every repeat under the keys it had.
    func renewKeys(_ id: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE donations SET key_renewals = key_renewals + 1 WHERE id = \(id)", logger: database.logger)
    }

    /// Lets go of donation `id`.
    func release(_ id: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE donations SET held_until = NULL WHERE id = \(id)", logger: database.logger)
    }

    /// Records that donation `id` is `status` (not succeeded: `succeed` posts that), with `reason`
    /// when it failed; a settled donation stays as it is.
    func mark(_ id: UUID, _ status: Payments.DonationStatus, reason: Payments.DeclineReason? = nil, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            UPDATE donations SET status = \(status.rawValue), reason = \(reason?.rawValue), updated_at = \(database.now()), held_until = NULL,
                -- A failed donation sends no receipt: its address goes.
                receipt_email = CASE WHEN \(status.rawValue) = 'failed' THEN NULL ELSE receipt_email END
            WHERE id = \(id) AND status NOT IN ('succeeded', 'failed') AND succeeded_at IS NULL
            """,
            logger: database.logger)
    }
}
