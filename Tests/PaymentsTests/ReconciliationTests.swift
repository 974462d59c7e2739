import Contracts
import Envelope
import Foundation
import PaymentsContract
@testable import PaymentsService
import PostgresNIO
import PostgresSupport
import ServiceKit
import Testing
import TestSupport

extension PaymentsStackTests {
/// The job `ledger.reconcile` against the local Stripe server: it settles a charge nobody told us
/// of, posts a fee learnt late, and counts each difference it cannot mend: a charge for a donation
/// we do not have, a donation marked succeeded the processor never charged, a balance off its entries.
@Suite(.timeLimit(.minutes(3))) struct ReconciliationTests {
    let donors = Donors()

    @Test func reconciliationSettlesWhatStripeChargedPostsLateFeesAndCountsWhatItCannotMend() async throws {
        let stripe = try await StripeTestServer()
        try await InProcessStack.with([.payments], environment: stripe.environment) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall")
            #expect(try await DonationRouteTests.give(http, gerry, to: roof, cents: 2_000).json?["status"] == "succeeded")
            // A charge whose balance transaction is not there yet: posted with no fee, the fee learnt later.
            try await stripe.balancePending(true)
            #expect(try await DonationRouteTests.give(http, gerry, to: roof, cents: 3_000).json?["status"] == "succeeded")
            try await stripe.balancePending(false)
            // A charge whose confirm answer was lost: Stripe charged it, we wait.
            try await stripe.fail("/v1/payment_intents/", delay: 2)
            #expect(try await DonationRouteTests.give(http, gerry, to: roof, cents: 4_000).json?["status"] == "processing")
            try await Task.sleep(for: .seconds(2))
            let fees = { () async throws -> JSONValue? in try await http.get("/v1/campaigns/\(roof)", headers: gerry).json?["statistics"]?["fees"]?["minorUnits"] }
            #expect(try await fees() == .number(Double(SandboxProcessor.fee(2_000))))

            let client = StripeClient(baseURL: stripe.url, secretKey: stripe.secretKey, timeout: .seconds(5))
            let handlers = DonationHandlers(
                database: database, donations: DonationStore(database: database, ledger: Ledger(database: database)),
                campaigns: CampaignStore(database: database, ledger: Ledger(database: database)), processor: client,
                access: FundraisingAccess(people: PeopleStore(database: database)), receipts: DonationReceipts(database: database, organisation: nil))
            // Two intents a page: the pages are followed to the end.
            let refunds = RefundHandlers(
                database: database, refunds: RefundStore(database: database, donations: handlers.donations), processor: client, access: handlers.access)
            let reconciliation = Reconciliation(database: database, donations: handlers, processor: client, refunds: refunds, pageSize: 2)
            let first = try await database.transaction { try await reconciliation.reconcile(on: $0) }
            #expect(first.compared && first.differences == 0 && first.settled == 1 && first.latePosted == 1, "\(first)")
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM donations WHERE status = 'succeeded'") == 3)
            #expect(try await fees() == .number(Double(SandboxProcessor.fee(2_000) + SandboxProcessor.fee(3_000) + SandboxProcessor.fee(4_000))))
            let again = try await database.transaction { try await reconciliation.reconcile(on: $0) }
            #expect(again.settled == 0 && again.latePosted == 0 && again.refundsLearnt == 0 && again.differences == 0, "nothing is posted twice: \(again)")

            // A refund made at Stripe's dashboard whose webhooks were all lost: learnt, posted once.
            let refunded = try #require(try await database.transaction { connection in
                try await connection.query("SELECT intent_id FROM donations WHERE gross_minor = 2000", logger: database.logger).decode(String.self).first { _ in true }
            })
            #expect(try await stripe.refundAtDashboard(refunded, amount: 500) != nil)
            let learnt = try await database.transaction { try await reconciliation.reconcile(on: $0) }
            #expect(learnt.refundsLearnt == 1 && learnt.differences == 0, "\(learnt)")
            #expect(try await database.transaction { try await reconciliation.reconcile(on: $0) }.refundsLearnt == 0)
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM ledger_transfers WHERE kind = 'refund'") == 1)

            // What it cannot mend, each counted: a charge for no donation of ours, a success Stripe never charged, a balance off.
            let stray = try await client.create(
                .init(amount: 1_000, currency: "eur", paymentMethod: "pm_card_visa", metadata: ["donation": UUID().uuidString.lowercased()]),
                idempotencyKey: UUID().uuidString)
            _ = try await client.confirm(stray.id, idempotencyKey: UUID().uuidString)
            let declined = try #require(Donors.string(
                try await DonationRouteTests.give(http, gerry, to: roof, cents: 1_000, method: "pm_card_visa_chargeDeclined"), "id"))
            try await database.transaction { connection in
                try await connection.query("UPDATE donations SET status = 'succeeded' WHERE id = \(UUID(uuidString: declined)!)", logger: database.logger)
                try await connection.query("UPDATE ledger_accounts SET balance = balance + 1 WHERE kind = 'fees'", logger: database.logger)
            }
            let off = try await database.transaction { try await reconciliation.reconcile(on: $0) }
            #expect(off.unknownCharges == 1 && off.notCharged == 1 && off.ledger.balancesOff == 1 && off.differences == 3, "\(off)")

            // An intent that charged another amount than its donation gave is never posted on: the donation waits, counted.
            let odd = try await database.transaction { connection in
                let charge = DonationStore.Charge(processor: "stripe", paymentMethod: "pm_card_visa", clientKey: "odd", fingerprint: "odd")
                return try await handlers.donations.open(
                    campaign: UUID(uuidString: roof)!, donor: donors.gerry, anonymous: false, gross: 3_000, charge: charge, on: connection)
            }
            let oddIntent = try await client.create(
                .init(amount: 2_500, currency: "eur", paymentMethod: "pm_card_visa", metadata: ["donation": odd.uuidString.lowercased()]),
                idempotencyKey: UUID().uuidString)
            _ = try await client.confirm(oddIntent.id, idempotencyKey: UUID().uuidString)
            try await database.transaction { try await handlers.donations.setIntent(odd, oddIntent.id, on: $0) }
            let oddRecord = try #require(try await database.transaction { try await handlers.donations.record(odd, on: $0) })
            #expect(try await handlers.drive(oddRecord, logger: database.logger).record.status == .processing)
            let last = try await database.transaction { try await reconciliation.reconcile(on: $0) }
            #expect(last.unknownCharges == 2 && last.settled == 0, "\(last)")
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM ledger_transfers WHERE donation_id = '\(odd)'") == 0)
        }
    }
}
}
