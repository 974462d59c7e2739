import Contracts
import Envelope
import Foundation
import PaymentsContract
@testable import PaymentsService
import Testing
import TestSupport

extension PaymentsStackTests {
/// A person's fundraising profile as another member sees it: karma, open campaigns, latest activity
/// without the anonymous gifts; no one who never used the app.
@Suite(.timeLimit(.minutes(3))) struct PeopleRouteTests {
    let donors = Donors()

    @Test func aProfileShowsKarmaOpenCampaignsAndActivityButNeverAnAnonymousGift() async throws {
        try await InProcessStack.with([.payments]) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall")
            let kit = try await Donors.start(http, fiona, title: "Kit for the team")
            #expect(try await http.post("/v1/campaigns/\(kit)/close", json: "{}", headers: fiona).status == 200)
            #expect(try await DonationRouteTests.give(http, gerry, to: roof, cents: 2_550).json?["status"] == "succeeded")
            #expect(try await DonationRouteTests.give(http, gerry, to: roof, cents: 10_000, anonymous: true).json?["status"] == "succeeded")
            let hana = try await http.signedIn(UUID(), as: Donors.caller("hana"))

            let gerrys = try await http.get("/v1/people/\(donors.gerry.uuidString.lowercased())", headers: hana)
            #expect(gerrys.status == 200 && gerrys.json?["person"]?["username"] == "gerry" && gerrys.json?["karma"] == 125, "\(gerrys.text)")
            let given = Donors.items(gerrys, "activity")
            #expect(given.count == 1 && given.first?["kind"] == "donated" && given.first?["amount"]?["minorUnits"] == 2_550, "the anonymous gift is not shown: \(given)")
            #expect(given.first?["campaignTitle"] == "New roof for the scout hall")

            let fionas = try await http.get("/v1/people/\(donors.fiona.uuidString.lowercased())", headers: hana)
            #expect(fionas.json?["karma"] == -125, "\(fionas.text)")
            #expect(Donors.items(fionas, "campaigns").map { $0["id"] } == [.string(roof)], "open campaigns only: \(fionas.text)")
            #expect(Donors.items(fionas, "activity").map { $0["kind"] } == ["campaign_started", "campaign_started"], "\(fionas.text)")
            let titles = Donors.items(fionas, "activity").map { $0["campaignTitle"] }
            #expect(titles.contains(nil) && titles.contains("New roof for the scout hall"), "the closed campaign's texts are gone: \(titles)")

            // No one who never used the app, nor a made-up id: the same 404; and only from the fundraising app.
            let stranger = try await http.get("/v1/people/\(UUID().uuidString.lowercased())", headers: hana)
            #expect(stranger.status == 404 && Donors.errorFields(stranger) == ["accountId"], "\(stranger.text)")
            let elsewhere = try await http.signedIn(donors.gerry, as: Donors.caller("gerry", app: "marketplace"))
            #expect(try await http.get("/v1/people/\(donors.fiona.uuidString.lowercased())", headers: elsewhere).status == 403)
        }
    }

    /// A member who has neither started a campaign nor given has a profile from their first request
    /// in the fundraising app: karma 0, nothing open, no activity. It was a 404 until a first
    /// campaign or donation, even for the member. Someone only known to another app stays the 404
    /// of a made-up id.
    @Test func aNewMemberHasAProfileWithKarmaZeroFromTheirFirstRequestInTheApp() async throws {
        try await InProcessStack.with([.payments]) { http in
            let (_, gerry) = try await donors.headers(http)
            let (hana, ivan, tom) = (UUID(), UUID(), UUID())
            let profile = { @Sendable (account: UUID, headers: [String: String]) in
                try await http.get("/v1/people/\(account.uuidString.lowercased())", headers: headers)
            }

            // Hana opens her own profile first thing.
            let hanas = try await http.signedIn(hana, as: Donors.caller("hana"))
            let own = try await profile(hana, hanas)
            #expect(own.status == 200 && own.json?["person"]?["username"] == "hana" && own.json?["karma"] == 0, "\(own.text)")
            #expect(Donors.items(own, "campaigns").isEmpty && Donors.items(own, "activity").isEmpty, "\(own.text)")
            #expect(try await profile(hana, gerry).json?["karma"] == 0, "another member sees her too")

            // Ivan only looks at the campaigns: a member all the same.
            let ivans = try await http.signedIn(ivan, as: Donors.caller("ivan"))
            #expect(try await http.get("/v1/campaigns", headers: ivans).status == 200)
            let seen = try await profile(ivan, gerry)
            #expect(seen.status == 200 && seen.json?["person"]?["username"] == "ivan" && seen.json?["karma"] == 0, "\(seen.text)")

            // Tom reads the project's campaign from the tax helper (any app may): that makes him no member here.
            let taxHelper = try await http.signedIn(tom, as: Donors.caller("tom", app: "melon"))
            #expect(try await http.get("/v1/project", headers: taxHelper).status == 200)
            let elsewhere = try await profile(tom, gerry)
            let madeUp = try await profile(UUID(), gerry)
            #expect(elsewhere.status == 404 && madeUp.status == 404, "\(elsewhere.text)")
            #expect(elsewhere.json?["detail"] == madeUp.json?["detail"] && Donors.errorFields(elsewhere) == Donors.errorFields(madeUp))
        }
    }
}
}
