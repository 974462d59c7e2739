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
/// Donations through the gateway's routing with the local default processor, the sandbox: what a
/// donor sees, what the ledger posts, and that a repeat charges once.
@Suite(.timeLimit(.minutes(3))) struct DonationRouteTests {
    let donors = Donors()

    static func give(_ http: InProcessHTTP, _ headers: [String: String], to campaign: String, cents: Int64, method: String = "pm_card_visa",
                     key: String? = UUID().uuidString, anonymous: Bool = false) async throws -> HTTPTestClient.Reply {
        let body = #"{"amount":{"minorUnits":\#(cents),"currency":"EUR"},"paymentMethod":"\#(method)","anonymous":\#(anonymous)}"#
        return try await http.post("/v1/campaigns/\(campaign)/donations", json: body, headers: key.map { headers.merging(["Idempotency-Key": $0]) { $1 } } ?? headers)
    }

    static func count(_ database: Database, _ sql: String) async throws -> Int {
        try await database.transaction { connection in
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).decode(Int.self).first { _ in true } ?? -1
        }
    }

    @Test func theOwnerHearsOfEachDonationAndBookmarkersOfHalfWayAndTheGoalOnce() async throws {
        try await InProcessStack.with([.payments]) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let hana = UUID()
            let hanas = try await http.signedIn(hana, as: Donors.caller("hana"))
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall", goal: 10_000)
            #expect(try await http.send("PUT", "/v1/campaigns/\(roof)/bookmark", headers: hanas).status == 200)
            let pushes = { (event: String) in
                try await database.sentRequests("notifications.push.send.v1").filter { $0["content"]?["eventType"] == .string(event) }
            }
            #expect(try await Self.give(http, gerry, to: roof, cents: 4_000).json?["status"] == "succeeded")
            #expect(try await Self.give(http, gerry, to: roof, cents: 2_000, anonymous: true).json?["status"] == "succeeded")
            let received = try await pushes("fundraising.donation.received")
            #expect(received.map { $0["content"]?["alert"]?["body"] } == [
                "gerry gave €40.00 to New roof for the scout hall", "Someone gave €20.00 to New roof for the scout hall",
            ], "\(received)")
            #expect(received.allSatisfy { $0["recipients"] == [.string(donors.fiona.uuidString.lowercased())] })
            // 60 of 100 euro: half way, told once to the owner and the bookmarker; then the goal.
            var milestones = try await pushes("fundraising.campaign.milestone")
            #expect(milestones.count == 1 && milestones.first?["content"]?["alert"]?["body"] == "New roof for the scout hall is half way to its goal")
            #expect(milestones.first?["recipients"] == .array([donors.fiona, hana].map { $0.uuidString.lowercased() }.sorted().map(JSONValue.string)),
                    "\(milestones)")
            let last = try #require(Donors.string(try await Self.give(http, gerry, to: roof, cents: 5_000), "id"))
            milestones = try await pushes("fundraising.campaign.milestone")
            #expect(milestones.map { $0["content"]?["alert"]?["body"] } == [
                "New roof for the scout hall is half way to its goal", "New roof for the scout hall reached its goal",
            ])
            // Given back and given again, the goal is crossed a second time: it is not told again.
            let refunded = try await http.post("/v1/donations/\(last)/refunds", json: "{}", headers: fiona.merging(["Idempotency-Key": "back"]) { $1 })
            #expect(refunded.status == 201 && refunded.json?["status"] == "succeeded", "\(refunded.text)")
            #expect(try await Self.give(http, gerry, to: roof, cents: 5_000).json?["status"] == "succeeded")
            #expect(try await pushes("fundraising.campaign.milestone").count == 2)
            // Each donation is told once.
            #expect(try await pushes("fundraising.donation.received").count == 4)
        }
    }

    @Test func aDonationIsChargedOncePostedWithItsKarmaAndADeclineLeavesNoEntry() async throws {
        try await InProcessStack.with([.payments]) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall")

            let key = UUID().uuidString
            let given = try await Self.give(http, gerry, to: roof, cents: 2_500, key: key)
            #expect(given.status == 201 && given.json?["status"] == "succeeded" && given.json?["processor"] == "sandbox", "\(given.text)")
            let id = try #require(Donors.string(given, "id"))
            // The same request again (a lost reply, a double tap): the same donation, charged once.
            let again = try await Self.give(http, gerry, to: roof, cents: 2_500, key: key)
            #expect(again.status == 201 && Donors.string(again, "id") == id && again.json?["status"] == "succeeded", "\(again.text)")
            #expect(try await Self.count(database, "SELECT count(*)::int FROM ledger_transfers WHERE kind = 'donation'") == 1)
            let other = try await Self.give(http, gerry, to: roof, cents: 3_000, key: key)
            #expect(other.status == 409, "the key names another donation: \(other.text)")
            let keyless = try await Self.give(http, gerry, to: roof, cents: 2_500, key: nil)
            #expect(keyless.status == 400 && Donors.errorFields(keyless) == ["Idempotency-Key"], "\(keyless.text)")
            // Several at once with one key (a double tap, a retrying client): one donation, one charge.
            let tapped = UUID().uuidString
            let taps = try await withThrowingTaskGroup(of: HTTPTestClient.Reply.self) { group in
                for _ in 0..<6 { group.addTask { try await Self.give(http, gerry, to: roof, cents: 700, key: tapped) } }
                return try await group.reduce(into: [HTTPTestClient.Reply]()) { $0.append($1) }
            }
            #expect(taps.allSatisfy { $0.status == 201 } && Set(taps.map { Donors.string($0, "id") }).count == 1, "\(taps.map(\.text))")
            #expect(try await Self.count(database, "SELECT count(*)::int FROM ledger_transfers WHERE kind = 'donation'") == 2)

            // The ledger: the gross held for the campaign, the sandbox's fee, karma both ways.
            let figures = try #require(try await http.get("/v1/campaigns/\(roof)", headers: gerry).json?["statistics"])
            let fees = SandboxProcessor.fee(2_500) + SandboxProcessor.fee(700)
            #expect(figures["gross"]?["minorUnits"] == 3_200 && figures["fees"]?["minorUnits"] == .number(Double(fees)), "\(figures)")
            let ledger = Ledger(database: database)
            #expect(try await database.transaction { try await ledger.karma(of: donors.gerry, on: $0) } == 32)
            #expect(try await database.transaction { try await ledger.karma(of: donors.fiona, on: $0) } == -32)

            // Declined: a safe reason, the processor's code in the log only, nothing posted.
            let poor = try await Self.give(http, gerry, to: roof, cents: 5_000, method: "pm_card_visa_chargeDeclinedInsufficientFunds")
            #expect(poor.status == 201 && poor.json?["status"] == "failed" && poor.json?["reason"] == "insufficient_funds", "\(poor.text)")
            let unknown = try await Self.give(http, gerry, to: roof, cents: 5_000, method: "pm_1NotATestCard")
            #expect(unknown.json?["status"] == "failed" && unknown.json?["reason"] == "card_declined", "the sandbox declines what is not a test method")
            #expect(try await Self.count(database, "SELECT count(*)::int FROM ledger_transfers") == 2)

            // Bad gifts name their fields; one's own campaign and a closed one take none.
            #expect(Donors.errorFields(try await Self.give(http, gerry, to: roof, cents: 49)) == ["amount.minorUnits"])
            #expect(Donors.errorFields(try await Self.give(http, gerry, to: roof, cents: 2_500, method: "4242424242424242")) == ["paymentMethod"])
            let own = try await Self.give(http, fiona, to: roof, cents: 2_500)
            #expect(own.status == 400 && Donors.errorFields(own) == ["campaignId"], "\(own.text)")
            #expect(try await Self.give(http, gerry, to: UUID().uuidString, cents: 2_500).status == 404)
            #expect(try await http.post("/v1/campaigns/\(roof)/close", json: "{}", headers: fiona).status == 200)
            #expect(try await Self.give(http, gerry, to: roof, cents: 2_500).status == 409)

            // The donor's own list; another's donation is as if it did not exist.
            let mine = Donors.items(try await http.get("/v1/me/donations", headers: gerry), "donations")
            #expect(mine.map { $0["status"] } == ["failed", "failed", "succeeded", "succeeded"], "\(mine)")
            #expect(try await http.get("/v1/donations/\(id)", headers: fiona).status == 404)
            #expect(try await http.get("/v1/donations/\(id)", headers: gerry).json?["status"] == "succeeded")
        }
    }

    @Test func aDonationTheBankWantsConfirmedWaitsForTheDonorThenPostsOnce() async throws {
        try await InProcessStack.with([.payments]) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall")
            let asked = try await Self.give(http, gerry, to: roof, cents: 10_000, method: "pm_card_threeDSecure2Required")
            #expect(asked.status == 201 && asked.json?["status"] == "requires_action" && asked.json?["nextAction"]?["type"] == "use_stripe_sdk", "\(asked.text)")
            #expect(asked.json?["nextAction"]?["clientSecret"] != nil)
            let id = try #require(Donors.string(asked, "id"))
            #expect(try await http.get("/v1/donations/\(id)", headers: gerry).json?["status"] == "requires_action", "it waits for the donor")
            #expect(try await Self.count(database, "SELECT count(*)::int FROM ledger_transfers") == 0)
            let stranger = try await http.post("/v1/donations/\(id)/finished", json: "{}", headers: fiona)
            let nowhere = try await http.post("/v1/donations/\(UUID())/finished", json: "{}", headers: fiona)
            #expect(stranger.status == 404 && stranger.json?["detail"] == nowhere.json?["detail"])

            let finished = try await http.post("/v1/donations/\(id)/finished", json: "{}", headers: gerry)
            #expect(finished.status == 200 && finished.json?["status"] == "succeeded" && finished.json?["nextAction"] == nil, "\(finished.text)")
            #expect(try await http.post("/v1/donations/\(id)/finished", json: "{}", headers: gerry).json?["status"] == "succeeded")
            #expect(try await Self.count(database, "SELECT count(*)::int FROM ledger_transfers") == 1)
        }
    }

    /// The process stopped after the processor took the charge and before our commit: the donation
    /// is left processing with its PaymentIntent stored. The sweep takes it on: posted once.
    @Test func aDonationLeftProcessingIsRecoveredFromItsStoredIntentByTheSweep() async throws {
        let clock = MovableClock(stopped: true)
        try await InProcessStack.with([.payments], clock: clock.clock) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let parts = try await ServiceDefinition.payments.parts(on: database, clock: clock.clock)
            let sweep = try #require(parts.jobs.first { $0.name.hasSuffix("donations.sweep") })
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall")
            let donations = DonationStore(database: database, ledger: Ledger(database: database)), sandbox = SandboxProcessor()
            // As `create` leaves it when the process dies after confirming: recorded, its intent stored and charged.
            let id = try await database.transaction { connection in
                let charge = DonationStore.Charge(processor: "sandbox", paymentMethod: "pm_card_visa", clientKey: "k1", fingerprint: "f")
                return try await donations.open(campaign: UUID(uuidString: roof)!, donor: donors.gerry, anonymous: false, gross: 4_000, charge: charge, on: connection)
            }
            let intent = try await sandbox.create(.init(amount: 4_000, currency: "eur", paymentMethod: "pm_card_visa", metadata: [:]), idempotencyKey: "melon-donation-\(id)")
            try await database.transaction { try await donations.setIntent(id, intent.id, on: $0) }
            _ = try await sandbox.confirm(intent.id, idempotencyKey: "melon-donation-\(id)-confirm")

            #expect(await sweep.round() == 0, "a donation is left alone for 30 s")
            clock.advance(.seconds(31))
            #expect(await sweep.round() == 1)
            #expect(await sweep.round() == 0, "settled: nothing left")
            let gerryNow = try await http.signedIn(donors.gerry, as: Donors.caller("gerry"))
            #expect(try await http.get("/v1/donations/\(id)", headers: gerryNow).json?["status"] == "succeeded")
            #expect(try await Self.count(database, "SELECT count(*)::int FROM ledger_transfers WHERE kind = 'donation'") == 1)
            _ = gerry
        }
    }
}
}
