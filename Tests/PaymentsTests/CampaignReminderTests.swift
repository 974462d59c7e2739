import Envelope
import Foundation
import PaymentsContract
@testable import PaymentsService
import ServiceKit
import Testing
import TestSupport

extension PaymentsStackTests {
/// The owner's weekly progress push and the "three days left" push to the owner and those who
/// bookmarked, each once, on the kit's clock (no sleeping).
@Suite(.timeLimit(.minutes(2))) struct CampaignReminderTests {
    let donors = Donors()

    @Test func ownersHearWeeklyWhileOpenUnlessTheyTurnItOffAndFollowersHearThreeDaysBeforeTheEnd() async throws {
        let clock = MovableClock(stopped: true)
        try await InProcessStack.with([.payments], clock: clock.clock) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let hana = UUID()
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall", goal: 10_000, endsIn: 20)
            let quiet = try await Donors.start(http, fiona, title: "Kit for the team", goal: 10_000, endsIn: 60)
            let turnedOff = try await http.send("PATCH", "/v1/campaigns/\(quiet)", body: Array(#"{"version":1,"weeklyProgress":false}"#.utf8), headers: fiona)
            #expect(turnedOff.status == 200 && turnedOff.json?["weeklyProgress"] == false, "\(turnedOff.text)")
            let seenByOthers = try await http.get("/v1/campaigns/\(roof)", headers: gerry)
            #expect(seenByOthers.status == 200 && seenByOthers.json?["campaign"]?["weeklyProgress"] == nil, "the owner's setting is theirs: \(seenByOthers.text)")
            #expect(try await http.get("/v1/campaigns/\(roof)", headers: fiona).json?["campaign"]?["weeklyProgress"] == true)
            #expect(try await http.send("PUT", "/v1/campaigns/\(roof)/bookmark", headers: try await http.signedIn(hana, as: Donors.caller("hana"))).status == 200)
            #expect(try await DonationRouteTests.give(http, gerry, to: roof, cents: 4_000).json?["status"] == "succeeded")

            let parts = try await ServiceDefinition.payments.parts(on: database, clock: clock.clock)
            let remind = try #require(parts.jobs.first { $0.name.hasSuffix("campaigns.remind") })
            let pushes = { (event: String) in
                try await database.sentRequests("notifications.push.send.v1").filter { $0["content"]?["eventType"] == .string(event) }
            }
            #expect(await remind.round() == 0, "a week has not passed")
            clock.advance(.seconds(7 * 86_400))
            #expect(await remind.round() == 1, "the roof's first week; the quiet campaign's owner turned it off")
            #expect(await remind.round() == 0, "once a week")
            clock.advance(.seconds(7 * 86_400))
            #expect(await remind.round() == 1)
            let progress = try await pushes("fundraising.campaign.progress").map { $0["content"]?["alert"]?["body"] }
            #expect(progress == ["€40.00 of €100.00 raised (40%), 1 donation this week", "€40.00 of €100.00 raised (40%), no new donations this week"],
                    "\(progress)")
            #expect(try await pushes("fundraising.campaign.progress").allSatisfy { $0["recipients"] == [.string(donors.fiona.uuidString.lowercased())] })

            // Seventeen days in (and an hour), three are left: the owner and the bookmarker hear it once.
            clock.advance(.seconds(3 * 86_400 + 3_600))
            #expect(await remind.round() == 1)
            #expect(await remind.round() == 0)
            let ending = try await pushes("fundraising.campaign.milestone").filter {
                if case .string(let body)? = $0["content"]?["alert"]?["body"] { body.contains("ends in three days") } else { false }
            }
            #expect(ending.count == 1 && ending.first?["recipients"] == .array([donors.fiona, hana].map { $0.uuidString.lowercased() }.sorted().map(JSONValue.string)),
                    "\(ending)")
            #expect(ending.first?["content"]?["alert"]?["body"] == "New roof for the scout hall ends in three days: €40.00 of €100.00 raised")
        }
    }
}
}
