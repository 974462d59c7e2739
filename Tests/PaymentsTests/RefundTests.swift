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
/// Refunds through the gateway and the Stripe client, against the local Stripe server: by the
/// campaign's owner or an admin only, whole or in part, once per Idempotency-Key, never beyond what
/// is left; Stripe's trouble is swept up; a refund made at Stripe's dashboard arrives by webhook; each
/// is posted once with its karma.
@Suite(.timeLimit(.minutes(3))) struct RefundTests {
    let donors = Donors()

    static func refund(_ http: InProcessHTTP, _ headers: [String: String], _ donation: String, cents: Int64?, key: String? = UUID().uuidString) async throws
        -> HTTPTestClient.Reply
    {
        let body = cents.map { #"{"amount":{"minorUnits":\#($0),"currency":"EUR"}}"# } ?? "{}"
        return try await http.post("/v1/donations/\(donation)/refunds", json: body, headers: key.map { headers.merging(["Idempotency-Key": $0]) { $1 } } ?? headers)
    }

    @Test func anOwnerOrAnAdminRefundsOnceWithinWhatIsLeftAndEveryRefundIsPostedOnceWithItsKarma() async throws {
        let stripe = try await StripeTestServer()
        let clock = MovableClock(stopped: true)
        let environment = stripe.environment.merging(["PAYMENTS_STRIPE_WEBHOOK_SECRET": WebhookTests.secret]) { $1 }
        try await InProcessStack.with([.payments], environment: environment, clock: clock.clock) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let ledger = Ledger(database: database)
            let karma = { (account: UUID) in try await database.transaction { try await ledger.karma(of: account, on: $0) } }
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall")
            let given = try await DonationRouteTests.give(http, gerry, to: roof, cents: 5_000)
            let donation = try #require(Donors.string(given, "id"))
            #expect(try await karma(donors.gerry) == 50)

            // The owner sees what the campaign received; the donor, a stranger and the owner of another campaign see nothing.
            let received = try await http.get("/v1/campaigns/\(roof)/donations", headers: fiona)
            #expect(Donors.items(received, "donations").map { $0["id"] } == [.string(donation)], "\(received.text)")
            #expect(Donors.items(received, "donations").first?["donor"] == "gerry")
            let hana = try await http.signedIn(UUID(), as: Donors.caller("hana"))
            #expect(try await http.get("/v1/campaigns/\(roof)/donations", headers: gerry).status == 404)
            for stranger in [gerry, hana] {
                let refused = try await Self.refund(http, stranger, donation, cents: 1_000)
                #expect(refused.status == 404 && Donors.errorFields(refused) == ["donationId"], "\(refused.text)")
            }
            #expect(try await Self.refund(http, fiona, donation, cents: 1_000, key: nil).status == 400)

            // A partial refund, once however often it is asked with its key; another amount under that key is refused.
            let key = UUID().uuidString
            let first = try await Self.refund(http, fiona, donation, cents: 2_000, key: key)
            #expect(first.status == 201 && first.json?["status"] == "succeeded", "\(first.text)")
            let again = try await Self.refund(http, fiona, donation, cents: 2_000, key: key)
            #expect(Donors.string(again, "id") == Donors.string(first, "id") && again.json?["status"] == "succeeded", "\(again.text)")
            #expect(try await Self.refund(http, fiona, donation, cents: 2_500, key: key).status == 409)
            #expect(try await stripe.refunds().count == 1)
            #expect(try await karma(donors.gerry) == 30)
            #expect(try await karma(donors.fiona) == -30)
            #expect(try await http.get("/v1/donations/\(donation)", headers: gerry).json?["returned"]?["minorUnits"] == 2_000)

            // Never beyond what is left: 30 euro are.
            let tooMuch = try await Self.refund(http, fiona, donation, cents: 3_001)
            #expect(tooMuch.status == 400 && Donors.errorFields(tooMuch) == ["amount.minorUnits"], "\(tooMuch.text)")

            // Two refunds at once with their own keys, of 20 euro each, when 30 are left: one of them.
            async let one = Self.refund(http, fiona, donation, cents: 2_000)
            async let other = Self.refund(http, fiona, donation, cents: 2_000)
            let both = try await [one, other]
            #expect(both.map(\.status).sorted() == [201, 400], "\(both.map(\.text))")
            let raced = try #require(both.first { $0.status == 201 })
            #expect(raced.json?["status"] == "succeeded")
            #expect(try await karma(donors.gerry) == 10)

            // Stripe busy with the same key elsewhere (409), or in trouble: the refund waits, pending, holding its 5 euro; the
            // sweep asks again under the same key.
            try await stripe.fail("/v1/refunds", status: 409)
            let troubled = try await Self.refund(http, fiona, donation, cents: 500)
            #expect(troubled.status == 201 && troubled.json?["status"] == "pending", "\(troubled.text)")
            #expect(Donors.errorFields(try await Self.refund(http, fiona, donation, cents: 600)) == ["amount.minorUnits"], "the pending 5 euro are held")
            let parts = try await ServiceDefinition.payments.parts(on: database, environment: environment, clock: clock.clock)
            let sweep = try #require(parts.jobs.first { $0.name.hasSuffix("refunds.sweep") })
            clock.advance(.seconds(61))
            #expect(await sweep.round() == 1)
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM refunds WHERE status = 'succeeded'") == 3)
            #expect(try await stripe.refunds().count == 3)

            // 2 euro refunded at Stripe's dashboard: learnt from the webhook, posted once however often it comes.
            let intent = try #require(try await database.transaction { connection in
                try await connection.query("SELECT intent_id FROM donations WHERE id = '\(unescaped: donation)'", logger: database.logger)
                    .decode(String.self).first { _ in true }
            })
            #expect(try await stripe.refundAtDashboard(intent, amount: 200) != nil)
            let event = WebhookTests.event(
                "evt_r1", "charge.refunded", #"{"id":"ch_1","object":"charge","payment_intent":"\#(intent)","amount_refunded":4700}"#)
            for id in ["evt_r1", "evt_r2"] {
                let payload = Data(String(decoding: event, as: UTF8.self).replacingOccurrences(of: "evt_r1", with: id).utf8)
                let delivered = try await WebhookTests.deliver(http, payload, signature: StripeSignature.header(payload, secret: WebhookTests.secret, time: clock.now()))
                #expect(delivered.status == 200, "\(delivered.text)")
            }
            #expect(try await karma(donors.gerry) == 3)

            // An admin refunds what is left (3 euro) of a campaign that is not theirs; then nothing is.
            let admin = try await http.signedIn(UUID(), as: TestCaller(username: "ada", roles: ["user", RefundHandlers.adminRole], app: "fundraising"))
            #expect(try await http.get("/v1/campaigns/\(roof)/donations", headers: admin).status == 200)
            let rest = try await Self.refund(http, admin, donation, cents: nil)
            #expect(rest.json?["amount"]?["minorUnits"] == 300 && rest.json?["status"] == "succeeded", "\(rest.text)")
            #expect(try await Self.refund(http, admin, donation, cents: nil).status == 409)

            #expect(try await karma(donors.gerry) == 0)
            #expect(try await karma(donors.fiona) == 0)
            let figures = try #require(try await http.get("/v1/campaigns/\(roof)", headers: gerry).json?["statistics"])
            #expect(figures["refunded"]?["minorUnits"] == 5_000, "\(figures)")
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM ledger_transfers WHERE kind = 'refund'") == 5)
            #expect(try await database.transaction { try await ledger.verify(on: $0) }.holds)
        }
    }

    @Test func aPendingRefundIsPostedWhenStripeSaysItSucceededAndAFailedOneLetsGoOfItsAmount() async throws {
        let stripe = try await StripeTestServer()
        let environment = stripe.environment.merging(["PAYMENTS_STRIPE_WEBHOOK_SECRET": WebhookTests.secret]) { $1 }
        try await InProcessStack.with([.payments], environment: environment) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall")
            let donation = try #require(Donors.string(try await DonationRouteTests.give(http, gerry, to: roof, cents: 4_000), "id"))
            try await stripe.refundsPending(true)
            let pending = try await Self.refund(http, fiona, donation, cents: 4_000)
            #expect(pending.json?["status"] == "pending", "\(pending.text)")
            let failing = try await Self.refund(http, fiona, donation, cents: 1)
            #expect(failing.status == 409, "all 40 euro are held: \(failing.text)")

            let made = try #require(try await stripe.refunds().first?["id"])
            guard case .string(let refundID) = made else { Issue.record("\(made)"); return }
            try await stripe.settleRefund(refundID, "failed")
            let failed = WebhookTests.event("evt_f", "refund.failed", #"{"id":"\#(refundID)","object":"refund","payment_intent":"pi_unknown"}"#)
            #expect(try await WebhookTests.deliver(http, failed, signature: StripeSignature.header(failed, secret: WebhookTests.secret, time: Date())).status == 200)
            let intent = try #require(try await database.transaction { connection in
                try await connection.query("SELECT intent_id FROM donations WHERE id = '\(unescaped: donation)'", logger: database.logger)
                    .decode(String.self).first { _ in true }
            })
            let updated = WebhookTests.event("evt_u", "refund.updated", #"{"id":"\#(refundID)","object":"refund","payment_intent":"\#(intent)"}"#)
            #expect(try await WebhookTests.deliver(http, updated, signature: StripeSignature.header(updated, secret: WebhookTests.secret, time: Date())).status == 200)
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM refunds WHERE status = 'failed'") == 1)
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM ledger_transfers WHERE kind = 'refund'") == 0)

            // Let go of: the 40 euro may be asked for again, and this time Stripe's later word posts it.
            let second = try await Self.refund(http, fiona, donation, cents: 4_000)
            #expect(second.json?["status"] == "pending", "\(second.text)")
            let secondID = try #require(try await stripe.refunds().compactMap { $0["id"] }.first { $0 != made })
            guard case .string(let secondRefund) = secondID else { return }
            try await stripe.settleRefund(secondRefund, "succeeded")
            let succeeded = WebhookTests.event("evt_s", "refund.updated", #"{"id":"\#(secondRefund)","object":"refund","payment_intent":"\#(intent)"}"#)
            #expect(try await WebhookTests.deliver(http, succeeded, signature: StripeSignature.header(succeeded, secret: WebhookTests.secret, time: Date())).status == 200)
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM ledger_transfers WHERE kind = 'refund'") == 1)
            #expect(try await http.get("/v1/donations/\(donation)", headers: gerry).json?["returned"]?["minorUnits"] == 4_000)
        }
    }
}
}
