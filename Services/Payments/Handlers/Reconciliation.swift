import Contracts
import Foundation
import Logging
import Metrics
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// The job `ledger.reconcile`: proves the ledger (every balance is the sum of its entries, every
/// transfer and every unit balances) and compares our donations of the last `window` with the
/// processor's PaymentIntents. A charge the processor made that we have not settled is settled now
/// (posted once, as any other path would); fees learnt late are posted; a refund made at the
/// processor whose events were lost is learnt. What cannot be mended is a
/// difference: the gauge `melon_payments_reconciliation_differences` and an error in the log, for
/// an operator to alert on.
struct Reconciliation: Sendable {
    let database: Database
    let donations: DonationHandlers
    let processor: any PaymentProcessor
    /// Learns refunds whose events were lost.
    let refunds: RefundHandlers
    /// How far back donations are compared with the processor's records.
    var window: Duration = .seconds(7 * 86_400)
    /// Intents asked for per page (Stripe's most).
    var pageSize = 100

    struct Report: Equatable, Sendable {
        var ledger = Ledger.Proof(balancesOff: 0, unbalancedTransfers: 0, unitsOff: 0)
        /// Our succeeded donations the processor has not charged (or charged otherwise).
        var notCharged = 0
        /// Charges the processor made for donations we do not know, or for another amount.
        var unknownCharges = 0
        /// Charges the processor made that we had not settled: settled now.
        var settled = 0
        /// Donations whose refunds at the processor were read back because one of them was not ours yet (its events lost).
        var refundsLearnt = 0
        /// Fees learnt late and posted now.
        var latePosted = 0
        /// Donations processing for more than an hour (the sweep should have taken them on).
        var stuck = 0
        /// Whether the processor's records were compared (the sandbox keeps none).
        var compared = false

        var differences: Int {
            ledger.balancesOff + ledger.unbalancedTransfers + ledger.unitsOff + notCharged + unknownCharges + stuck
        }
    }

    func run(on connection: PostgresConnection) async throws -> Int {
        let report = try await reconcile(on: connection)
        Gauge(label: "melon_payments_reconciliation_differences").record(report.differences)
        let metadata: Logger.Metadata = [
            "balances_off": "\(report.ledger.balancesOff)", "unbalanced_transfers": "\(report.ledger.unbalancedTransfers)",
            "units_off": "\(report.ledger.unitsOff)", "not_charged": "\(report.notCharged)", "unknown_charges": "\(report.unknownCharges)",
            "stuck": "\(report.stuck)", "settled": "\(report.settled)", "late_fees": "\(report.latePosted)", "refunds_learnt": "\(report.refundsLearnt)", "compared": "\(report.compared)",
        ]
        if report.differences > 0 {
            database.logger.error("reconciliation found differences", metadata: metadata)
        } else {
            database.logger.info("reconciliation holds", metadata: metadata)
        }
        return report.settled + report.latePosted + report.refundsLearnt
    }

    /// Every item of a list the processor gives a page at a time (Stripe's `starting_after` and `has_more`).
    static func everyPage<Item>(id: (Item) -> String, _ page: (String?) async throws -> ([Item], Bool)) async throws -> [Item] {
        var items: [Item] = []
        var after: String?
        repeat {
            let (more, hasMore) = try await page(after)
            items += more
            after = hasMore ? more.last.map(id) : nil
        } while after != nil
        return items
    }

    func reconcile(on connection: PostgresConnection) async throws -> Report {
        var report = Report()
        report.ledger = try await donations.donations.ledger.verify(on: connection)
        let stuck = try await connection.query(
            "SELECT count(*)::int FROM donations WHERE status = 'processing' AND created_at < \(database.ago(.seconds(3_600)))", logger: database.logger)
        report.stuck = try await stuck.decode(Int.self).first { _ in true } ?? 0
        guard processor.keepsRecords else {
            database.logger.notice("the sandbox keeps no records: donations are not compared with a processor's")
            return report
        }
        report.compared = true
        let since = database.ago(window)
        // Ours first: every donation made in the window through this processor (and a day before it, whose intent may be
        // in it). A donation that succeeds while the processor's list is read is then not in this snapshot as succeeded,
        // so it is never judged uncharged.
        let ours = try await donations.donations.records(
            "WHERE processor = \(processor.name) AND created_at >= \(since - 86_400) AND intent_id IS NOT NULL", on: connection)
        // The processor's side: every intent made in the window.
        let intents = try await Self.everyPage(id: \PaymentIntent.id) { try await processor.intents(createdSince: since, after: $0, limit: pageSize) }
        let charged = Dictionary(intents.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for record in ours where record.status == .succeeded && record.createdAt >= since {
            let intent = record.intent.flatMap { charged[$0] }
            if intent?.status != .succeeded || !(intent.map { DonationHandlers.matches($0, record) } ?? false) {
                report.notCharged += 1
                database.logger.error("a succeeded donation the processor did not charge so", metadata: ["donation": "\(record.id)"])
            }
        }
        let byIntent = Dictionary(ours.compactMap { record in record.intent.map { ($0, record) } }, uniquingKeysWith: { first, _ in first })
        for intent in charged.values where intent.status == .succeeded {
            // A donation made after the snapshot is read now.
            var record = byIntent[intent.id]
            if record == nil {
                record = try await donations.donations.record(paidBy: intent.id, on: connection)
            }
            guard let record, DonationHandlers.matches(intent, record) else {
                report.unknownCharges += 1
                database.logger.error("the processor charged for a donation we do not have", metadata: ["intent": "\(intent.id)"])
                continue
            }
            if record.status != .succeeded {
                _ = try await donations.settle(record.id, intent, logger: database.logger)
                report.settled += 1
            }
        }
        // Refunds made in the window that we do not have as settled (their webhooks lost): their charges' refunds read back.
        let made = try await Self.everyPage(id: \ProcessorRefund.id) { try await processor.refunds(createdSince: since, after: $0, limit: pageSize) }
        let known = try await connection.query(
            "SELECT processor_id FROM refunds WHERE processor_id = ANY(\(made.map(\.id))) AND status <> 'pending'", logger: database.logger)
        var settled = Set<String>()
        for try await id in known.decode(String.self) { settled.insert(id) }
        let unsettled = Set(made.filter { !settled.contains($0.id) && $0.status != .pending }.compactMap(\.paymentIntent))
        for intent in unsettled {
            guard let record = try await donations.donations.record(paidBy: intent, on: connection) else { continue }
            let before = try await refunds.refunds.settledCount(of: record.id, on: connection)
            try await refunds.sync(donation: record.id, intent: intent)
            if try await refunds.refunds.settledCount(of: record.id, on: connection) != before { report.refundsLearnt += 1 }
        }
        for record in try await donations.donations.feesUnknown(limit: 100, on: connection) {
            guard let id = record.intent, let fee = try await processor.retrieve(id).fee else { continue }
            let posted = try await database.transaction { connection in
                let posted = try await donations.donations.postLateFee(record.id, fee: fee, on: connection)
                // Known now (a fee of nothing posts nothing): the receipt can say it.
                try await donations.receipts.send(for: record.id, on: connection)
                return posted
            }
            if posted { report.latePosted += 1 }
        }
        return report
    }
}
