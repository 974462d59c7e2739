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
/// Stripe's webhooks through the gateway: the signature over the exact bytes, an event seen twice
/// or out of order, a payment the confirm's answer never told us about, and a dispute.
@Suite(.timeLimit(.minutes(3))) struct WebhookTests {
    let donors = Donors()
    static let secret = "whsec_melon_test"

    static func event(_ id: String, _ type: String, _ object: String) -> Data {
        Data(#"{"id":"\#(id)","object":"event","type":"\#(type)","created":1764201600,"livemode":false,"data":{"object":\#(object)}}"#.utf8)
    }

    static func deliver(_ http: InProcessHTTP, _ payload: Data, signature: String?) async throws -> HTTPTestClient.Reply {
        var headers = ["Content-Type": "application/json"]
        if let signature { headers["Stripe-Signature"] = signature }
        return try await http.send("POST", "/v1/webhooks/stripe", body: Array(payload), headers: headers)
    }

    @Test func aSignedEventSettlesItsDonationOnceAndADisputeGivesTheMoneyAndKarmaBack() async throws {
        let stripe = try await StripeTestServer()
        let environment = stripe.environment.merging(["PAYMENTS_STRIPE_WEBHOOK_SECRET": Self.secret]) { $1 }
        try await InProcessStack.with([.payments], environment: environment) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall")
            // The confirm's answer is lost: the donation waits, processing, though Stripe charged it.
            try await stripe.fail("/v1/payment_intents/", delay: 2)
            let late = try await DonationRouteTests.give(http, gerry, to: roof, cents: 5_000)
            #expect(late.json?["status"] == "processing", "\(late.text)")
            let id = try #require(Donors.string(late, "id"))
            try await Task.sleep(for: .seconds(2))
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM donations WHERE status = 'processing'") == 1)
            let intent = try #require(try await database.transaction { connection in
                try await connection.query("SELECT intent_id FROM donations WHERE id = '\(unescaped: id)'", logger: database.logger)
                    .decode(String.self).first { _ in true }
            })

            // Signed wrongly, too long ago, or not at all: refused, naming the header.
            let succeeded = Self.event("evt_1", "payment_intent.succeeded", #"{"id":"\#(intent)","object":"payment_intent","status":"succeeded"}"#)
            let forged = try await Self.deliver(http, succeeded, signature: StripeSignature.header(succeeded, secret: "whsec_other", time: Date()))
            #expect(forged.status == 400 && Donors.errorFields(forged) == ["Stripe-Signature"], "\(forged.text)")
            let stale = try await Self.deliver(http, succeeded, signature: StripeSignature.header(succeeded, secret: Self.secret, time: Date() - 600))
            #expect(stale.status == 400)
            #expect(try await Self.deliver(http, succeeded, signature: nil).status == 400)
            // A byte changed after signing (the gateway hands over the bytes as received, so the check sees it).
            var tampered = succeeded
            tampered[tampered.count - 3] = UInt8(ascii: "X")
            #expect(try await Self.deliver(http, tampered, signature: StripeSignature.header(succeeded, secret: Self.secret, time: Date())).status == 400)

            let first = try await Self.deliver(http, succeeded, signature: StripeSignature.header(succeeded, secret: Self.secret, time: Date()))
            #expect(first.status == 200 && first.json?["duplicate"] == false, "\(first.text)")
            // Settled by the event itself (a read would take it on too, so the database is asked).
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM donations WHERE status = 'succeeded'") == 1)
            let again = try await Self.deliver(http, succeeded, signature: StripeSignature.header(succeeded, secret: Self.secret, time: Date()))
            #expect(again.status == 200 && again.json?["duplicate"] == true, "\(again.text)")
            // An older event arriving late changes nothing settled.
            let older = Self.event("evt_0", "payment_intent.processing", #"{"id":"\#(intent)","object":"payment_intent","status":"processing"}"#)
            #expect(try await Self.deliver(http, older, signature: StripeSignature.header(older, secret: Self.secret, time: Date())).status == 200)
            #expect(try await http.get("/v1/donations/\(id)", headers: gerry).json?["status"] == "succeeded")
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM ledger_transfers WHERE kind = 'donation'") == 1)
            let ledger = Ledger(database: database)
            #expect(try await database.transaction { try await ledger.karma(of: donors.gerry, on: $0) } == 50)

            // A dispute: the amount goes back with its karma, once however often Stripe says so.
            let dispute = Self.event("evt_2", "charge.dispute.created",
                                     #"{"id":"dp_1","object":"dispute","amount":5000,"currency":"eur","payment_intent":"\#(intent)","status":"needs_response"}"#)
            for _ in 0..<2 {
                #expect(try await Self.deliver(http, dispute, signature: StripeSignature.header(dispute, secret: Self.secret, time: Date())).status == 200)
            }
            #expect(try await database.transaction { try await ledger.karma(of: donors.gerry, on: $0) } == 0)
            #expect(try await database.transaction { try await ledger.karma(of: donors.fiona, on: $0) } == 0)
            let figures = try #require(try await http.get("/v1/campaigns/\(roof)", headers: gerry).json?["statistics"])
            #expect(figures["refunded"]?["minorUnits"] == 5_000 && figures["gross"]?["minorUnits"] == 5_000, "\(figures)")
            #expect(try await database.transaction { try await ledger.verify(on: $0) }.holds)
        }
    }
}
}
