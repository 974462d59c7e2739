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
/// Donations through the Stripe client, against the local server written for the tests that speaks
/// Stripe's documented PaymentIntents API: the charge, its fee, idempotent repeats, declines, 3-D
/// Secure, a timeout followed by success, Stripe's trouble, and the sweep.
@Suite(.timeLimit(.minutes(3))) struct StripeDonationTests {
    let donors = Donors()

    @Test func aDonationIsChargedOnceThroughStripeWithItsFeeEvenWhenAnswersAreLostOrLate() async throws {
        let stripe = try await StripeTestServer()
        try await InProcessStack.with([.payments], environment: stripe.environment) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall")

            let key = UUID().uuidString
            let given = try await DonationRouteTests.give(http, gerry, to: roof, cents: 2_500, key: key)
            #expect(given.status == 201 && given.json?["status"] == "succeeded" && given.json?["processor"] == "stripe", "\(given.text)")
            let figures = try #require(try await http.get("/v1/campaigns/\(roof)", headers: gerry).json?["statistics"])
            #expect(figures["fees"]?["minorUnits"] == .number(Double(25 + 2_500 * 15 / 1_000)), "the fee from the balance transaction: \(figures)")
            // Every POST to Stripe carried an idempotency key made from the donation; the repeat asks nothing new.
            let requests = try await stripe.requests()
            #expect(requests.count == 2 && requests.allSatisfy { $0["idempotencyKey"] != nil && $0["idempotencyKey"] != .null }, "\(requests)")
            _ = try await DonationRouteTests.give(http, gerry, to: roof, cents: 2_500, key: key)
            #expect(try await stripe.charges().count == 1)

            // The confirm's answer comes too late (the charge happened): processing, then a read finds it succeeded.
            try await stripe.fail("/v1/payment_intents/", delay: 2)
            let late = try await DonationRouteTests.give(http, gerry, to: roof, cents: 4_000)
            #expect(late.status == 201 && late.json?["status"] == "processing", "\(late.text)")
            let lateID = try #require(Donors.string(late, "id"))
            try await Task.sleep(for: .seconds(2))
            #expect(try await http.get("/v1/donations/\(lateID)", headers: gerry).json?["status"] == "succeeded")
            #expect(try await stripe.charges().count == 2)

            // Stripe's own trouble at the create, which it answers again to that key: processing; the repeat with the
            // same Idempotency-Key resumes the same donation, created at Stripe under a new key, and charges once.
            try await stripe.fail("/v1/payment_intents", status: 500)
            let troubleKey = UUID().uuidString
            let trouble = try await DonationRouteTests.give(http, gerry, to: roof, cents: 1_000, key: troubleKey)
            #expect(trouble.json?["status"] == "processing", "\(trouble.text)")
            let retried = try await DonationRouteTests.give(http, gerry, to: roof, cents: 1_000, key: troubleKey)
            #expect(retried.json?["status"] == "succeeded" && Donors.string(retried, "id") == Donors.string(trouble, "id"), "\(retried.text)")
            #expect(try await stripe.charges().count == 3)
            let troubleID = try #require(Donors.string(trouble, "id"))
            let creates = try await Self.keys(stripe, path: "/v1/payment_intents").filter { $0.hasPrefix("melon-donation-\(troubleID)") }
            #expect(creates == ["melon-donation-\(troubleID)", "melon-donation-\(troubleID)-1"], "\(creates)")

            // A decline: a safe reason, nothing posted.
            let declined = try await DonationRouteTests.give(http, gerry, to: roof, cents: 1_000, method: "pm_card_chargeDeclinedExpiredCard")
            #expect(declined.json?["status"] == "failed" && declined.json?["reason"] == "expired", "\(declined.text)")
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM ledger_transfers") == 3)
            #expect(try await database.transaction { try await Ledger(database: database).verify(on: $0) }.holds)
        }
    }

    /// The idempotency keys of the POSTs Stripe received at `path`, or at the paths ending with `suffix`, in order.
    static func keys(_ stripe: StripeTestServer, path: String? = nil, suffix: String? = nil) async throws -> [String] {
        try await stripe.requests().compactMap { request -> String? in
            guard request["method"] == "POST", case .string(let at)? = request["path"], case .string(let key)? = request["idempotencyKey"],
                  path.map({ at == $0 }) ?? true, suffix.map({ at.hasSuffix($0) }) ?? true
            else { return nil }
            return key
        }
    }

    /// Stripe keeps a 500 as its key's result and answers it to every repeat under that key: a confirm
    /// answered 500 and tried again under its key never finished (27 tries in 100 s). It is tried
    /// again under a new key (a PaymentIntent succeeds once), and charged once.
    @Test func aConfirmAnswered500IsTriedAgainUnderANewKeyAndChargedOnce() async throws {
        let stripe = try await StripeTestServer()
        try await InProcessStack.with([.payments], environment: stripe.environment) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall")

            // The confirm is answered 500 (the create's path has no slash after payment_intents).
            try await stripe.fail("/v1/payment_intents/", status: 500)
            let troubled = try await DonationRouteTests.give(http, gerry, to: roof, cents: 2_000)
            #expect(troubled.status == 201 && troubled.json?["status"] == "processing", "\(troubled.text)")
            let id = try #require(Donors.string(troubled, "id"))

            // A read takes it on: the intent still waits for its confirmation, which goes under a new key.
            let read = try await http.get("/v1/donations/\(id)", headers: gerry)
            #expect(read.json?["status"] == "succeeded", "\(read.text)")
            let confirms = try await Self.keys(stripe, suffix: "/confirm")
            #expect(confirms == ["melon-donation-\(id)-confirm", "melon-donation-\(id)-confirm-1"], "\(confirms)")
            #expect(try await stripe.charges().count == 1)
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM ledger_transfers WHERE kind = 'donation'") == 1)

            // The test server keeps Stripe's rule: the first key still answers its 500, replayed.
            let intent = try await database.transaction { connection in
                try await connection.query("SELECT intent_id FROM donations WHERE id = \(UUID(uuidString: id)!)", logger: database.logger)
                    .decode(String?.self).first { _ in true } ?? nil
            }
            let intentID = try #require(intent)
            let replay = try await HTTPTestClient(base: URL(string: stripe.url)!).send(
                "POST", "/v1/payment_intents/\(intentID)/confirm", body: Array(StripeClient.encoded([("expand[]", StripeClient.expandFee)]).utf8),
                headers: [
                    "Authorization": "Bearer \(stripe.secretKey)", "Idempotency-Key": "melon-donation-\(id)-confirm",
                    "Content-Type": "application/x-www-form-urlencoded",
                ])
            #expect(replay.status == 500 && replay.header("Idempotent-Replayed") == "true", "\(replay.status) \(replay.text)")
        }
    }

    @Test func threeDSecureWaitsForTheDonorAndTheSweepRecoversWhatTheProcessStoppedOn() async throws {
        let stripe = try await StripeTestServer()
        let clock = MovableClock(stopped: true)
        try await InProcessStack.with([.payments], environment: stripe.environment, clock: clock.clock) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall")
            let asked = try await DonationRouteTests.give(http, gerry, to: roof, cents: 10_000, method: "pm_card_threeDSecure2Required")
            #expect(asked.json?["status"] == "requires_action" && asked.json?["nextAction"]?["type"] == "use_stripe_sdk", "\(asked.text)")
            let id = try #require(Donors.string(asked, "id"))
            let secret = try #require(asked.json?["nextAction"]?["clientSecret"])
            #expect(try await http.post("/v1/donations/\(id)/finished", json: "{}", headers: gerry).json?["status"] == "requires_action", "not done yet")
            guard case .string(let text) = secret, let intent = text.components(separatedBy: "_secret_").first else { Issue.record("\(secret)"); return }
            try await stripe.authenticate(intent)
            #expect(try await http.post("/v1/donations/\(id)/finished", json: "{}", headers: gerry).json?["status"] == "succeeded")

            // The process stopped after confirming, before its commit: the sweep finds the charge from the stored intent.
            let parts = try await ServiceDefinition.payments.parts(on: database, environment: stripe.environment, clock: clock.clock)
            let sweep = try #require(parts.jobs.first { $0.name.hasSuffix("donations.sweep") })
            let donations = DonationStore(database: database, ledger: Ledger(database: database))
            let client = StripeClient(baseURL: stripe.url, secretKey: stripe.secretKey, timeout: .seconds(5))
            let stopped = try await database.transaction { connection in
                let charge = DonationStore.Charge(processor: "stripe", paymentMethod: "pm_card_visa", clientKey: "k", fingerprint: "f")
                return try await donations.open(campaign: UUID(uuidString: roof)!, donor: donors.gerry, anonymous: false, gross: 3_000, charge: charge, on: connection)
            }
            let made = try await client.create(
                .init(amount: 3_000, currency: "eur", paymentMethod: "pm_card_visa", metadata: [:]), idempotencyKey: "melon-donation-\(stopped.uuidString.lowercased())")
            try await database.transaction { try await donations.setIntent(stopped, made.id, on: $0) }
            _ = try await client.confirm(made.id, idempotencyKey: "melon-donation-\(stopped.uuidString.lowercased())-confirm")
            clock.advance(.seconds(31))
            #expect(await sweep.round() == 1)
            let gerryNow = try await http.signedIn(donors.gerry, as: Donors.caller("gerry"))
            #expect(try await http.get("/v1/donations/\(stopped.uuidString.lowercased())", headers: gerryNow).json?["status"] == "succeeded")
            #expect(try await stripe.charges().count == 2)
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM ledger_transfers WHERE kind = 'donation'") == 2)
        }
    }
}
}
