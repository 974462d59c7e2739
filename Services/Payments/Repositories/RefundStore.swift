import Contracts
import Envelope
import Foundation
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// `payments.refunds` (`0005_refunds.sql`): each refund, asked for here or learnt from the
/// processor. A pending refund holds its amount against what is left of its donation; a succeeded
/// one is posted once, as the transfer made from the processor's id for it.
struct RefundStore: Sendable {
    let database: Database
    let donations: DonationStore

    struct Record: Sendable {
        let id: UUID
        let donation: UUID
        let amount: Int64
        let status: Payments.RefundStatus
        let processorID: String?
        let requestedBy: UUID?
        let fingerprint: String?
        let createdAt: Date
        /// The donation's PaymentIntent.
        let intent: String?

        var view: Payments.Refund {
            .init(id: CampaignStore.text(id), donationId: CampaignStore.text(donation), amount: CampaignStore.euros(amount), status: status, createdAt: createdAt)
        }
    }

    private func records(_ condition: PostgresQuery, on connection: PostgresConnection) async throws -> [Record] {
        var query = PostgresQuery(unsafeSQL: """
            SELECT r.id, r.donation_id, r.amount_minor, r.status, r.processor_id, r.requested_by, r.fingerprint, r.created_at, d.intent_id
            FROM refunds r JOIN donations d ON d.id = r.donation_id \n
            """)
        query.sql += condition.sql
        query.binds = condition.binds
        var records: [Record] = []
        let rows = try await connection.query(query, logger: database.logger)
            .decode((UUID, UUID, Int64, String, String?, UUID?, String?, Date, String?).self)
        for try await (id, donation, amount, status, processorID, requestedBy, fingerprint, created, intent) in rows {
            records.append(Record(
                id: id, donation: donation, amount: amount, status: Payments.RefundStatus(rawValue: status) ?? .pending, processorID: processorID,
                requestedBy: requestedBy, fingerprint: fingerprint, createdAt: created, intent: intent))
        }
        return records
    }

    func record(_ id: UUID, on connection: PostgresConnection) async throws -> Record? {
        try await records("WHERE r.id = \(id)", on: connection).first
    }

    /// The refund `requester` asked for under client key `key`, if they did.
    func record(of requester: UUID, clientKey key: String, on connection: PostgresConnection) async throws -> Record? {
        try await records("WHERE r.requested_by = \(requester) AND r.client_key = \(key)", on: connection).first
    }

    /// What is left of donation `donation` (as locked by the caller) to give back: its gross less
    /// what was given back and what pending refunds hold.
    func left(of donation: DonationStore.Record, on connection: PostgresConnection) async throws -> Int64 {
        let rows = try await connection.query(
            "SELECT COALESCE(sum(amount_minor), 0)::bigint FROM refunds WHERE donation_id = \(donation.id) AND status = 'pending'", logger: database.logger)
        let pending = try await rows.decode(Int64.self).first { _ in true } ?? 0
        return donation.gross - donation.returned - pending
    }

    /// Records a pending refund of `amount` of `donation`; its id.
    func open(donation: UUID, amount: Int64, requestedBy: UUID?, clientKey: String?, fingerprint: String?, processorID: String? = nil,
              on connection: PostgresConnection) async throws -> UUID {
        let id = UUID()
        try await connection.query(
            """
            INSERT INTO refunds (id, donation_id, amount_minor, processor_id, requested_by, client_key, fingerprint, created_at, updated_at)
            VALUES (\(id), \(donation), \(amount), \(processorID), \(requestedBy), \(clientKey), \(fingerprint), \(database.now()), \(database.now()))
            """,
            logger: database.logger)
        return id
    }

    /// Records what the processor says of refund `id`, under its donation's lock: a success is
    /// posted once (as what was actually refunded); a failure lets go of the amount it held.
    func settle(_ id: UUID, _ answer: ProcessorRefund, on connection: PostgresConnection) async throws {
        guard let record = try await record(id, on: connection),
              let donation = try await donations.record(record.donation, locking: true, on: connection) else { return }
        try await connection.query(
            "UPDATE refunds SET processor_id = COALESCE(processor_id, \(answer.id)), updated_at = \(database.now()) WHERE id = \(id)",
            logger: database.logger)
        switch answer.status {
        case .succeeded? where donation.status != .succeeded:
            // Refunded before we settled the donation itself (a webhook ahead of it): posted once the donation is.
            break
        case .succeeded?:
            let transfer = Ledger.transfer(processor: "refund:\(answer.id)")
            if try await donations.giveBack(record.donation, amount: answer.amount, as: .refund, transfer: transfer, on: connection) == nil {
                database.logger.error(
                    "the processor refunded what the ledger has no more of: reconcile by hand", metadata: ["refund": "\(id)", "processor_refund": "\(answer.id)"])
            }
            // The processor's word wins over a failure we recorded (a refusal while the same key was in flight).
            try await connection.query(
                "UPDATE refunds SET status = 'succeeded', updated_at = \(database.now()) WHERE id = \(id) AND status <> 'succeeded'", logger: database.logger)
        case .failed?, .canceled?:
            try await mark(id, .failed, on: connection)
        case .pending?, .requiresAction?, nil:
            break
        }
    }

    /// Refund `id` is `status` unless it is settled already.
    func mark(_ id: UUID, _ status: Payments.RefundStatus, on connection: PostgresConnection) async throws {
        try await connection.query(
            "UPDATE refunds SET status = \(status.rawValue), updated_at = \(database.now()) WHERE id = \(id) AND status = 'pending'", logger: database.logger)
    }

    /// Our refund for the processor's `answer` of donation `donation`: found by the processor's id or
    /// by ours in its metadata, or recorded now (a refund made at the processor's dashboard).
    func match(_ answer: ProcessorRefund, donation: UUID, on connection: PostgresConnection) async throws -> UUID {
        // Under the donation's lock: two events about one new refund (charge.refunded and refund.created at once) record it once.
        _ = try await donations.record(donation, locking: true, on: connection)
        let ours = answer.metadata["refund"].flatMap(UUID.init(uuidString:))
        let found = try await connection.query(
            "SELECT id FROM refunds WHERE processor_id = \(answer.id) OR (id = \(ours) AND donation_id = \(donation)) ORDER BY processor_id NULLS LAST LIMIT 1",
            logger: database.logger)
        if let id = try await found.decode(UUID.self).first(where: { _ in true }) { return id }
        return try await open(donation: donation, amount: answer.amount, requestedBy: nil, clientKey: nil, fingerprint: nil, processorID: answer.id,
                              on: connection)
    }

    /// How many of donation `donation`'s refunds are settled (succeeded or failed).
    func settledCount(of donation: UUID, on connection: PostgresConnection) async throws -> Int {
        try await connection.query("SELECT count(*)::int FROM refunds WHERE donation_id = \(donation) AND status <> 'pending'", logger: database.logger)
            .decode(Int.self).first { _ in true } ?? 0
    }

    /// Refunds still pending and untouched since `before`: the sweep's work.
    func pending(since before: Date, limit: Int, on connection: PostgresConnection) async throws -> [Record] {
        try await records("WHERE r.status = 'pending' AND r.updated_at < \(before) ORDER BY r.updated_at LIMIT \(limit)", on: connection)
    }

    /// The succeeded donations campaign `campaign` received, the newest first, below `before`.
    func received(_ campaign: UUID, before: Int64?, limit: Int, on connection: PostgresConnection) async throws -> [Payments.ReceivedDonation] {
        let rows = try await connection.query(
            """
            SELECT d.id, d.gross_minor, d.returned_minor, CASE WHEN d.anonymous THEN NULL ELSE p.username END, d.succeeded_at, d.seq
            FROM donations d LEFT JOIN people p ON p.account_id = d.donor_id
            WHERE d.campaign_id = \(campaign) AND d.status = 'succeeded' AND (\(before)::bigint IS NULL OR d.seq < \(before))
            ORDER BY d.seq DESC LIMIT \(limit)
            """,
            logger: database.logger)
        var page: [Payments.ReceivedDonation] = []
        for try await (id, gross, returned, donor, at, seq) in rows.decode((UUID, Int64, Int64, String?, Date, Int64).self) {
            page.append(.init(id: CampaignStore.text(id), amount: CampaignStore.euros(gross), returned: CampaignStore.euros(returned), donor: donor, at: at, seq: seq))
        }
        return page
    }
}
