import Bus
import Contracts
import Envelope
import Foundation
import PaymentsContract
@testable import PaymentsService
import Testing
import TestSupport

extension PaymentsStackTests {
/// A campaign's cover picture: put by its owner, seen by everyone in the app, replaced, gone when
/// the owner closes the campaign or their account is erased.
@Suite(.timeLimit(.minutes(2))) struct CoverRouteTests {
    let donors = Donors()

    static func put(_ http: InProcessHTTP, _ campaign: String, _ headers: [String: String], bytes: [UInt8] = Array(ImageSamples.png40x30))
        async throws -> HTTPTestClient.Reply
    {
        try await http.send("PUT", "/v1/campaigns/\(campaign)/cover", body: bytes, headers: headers.merging(["Content-Type": "image/png"]) { $1 })
    }

    @Test func anOwnerPutsACoverEveryoneSeesItAndItGoesWithTheCampaignsTexts() async throws {
        try await InProcessStack.with([.payments]) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let media = { try await DonationRouteTests.count(database, "SELECT count(*)::int FROM media_objects") }
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall")

            let put = try await Self.put(http, roof, fiona)
            #expect(put.status == 200 && put.json?["cover"]?["width"] == 40 && put.json?["cover"]?["height"] == 30, "\(put.text)")
            let seen = try await http.get("/v1/campaigns/\(roof)/cover", headers: gerry)
            #expect(seen.status == 200 && !seen.body.isEmpty && seen.header("etag") != nil, "\(seen.status)")
            let thumbnail = try await http.get("/v1/campaigns/\(roof)/cover?size=thumbnail", headers: gerry)
            #expect(thumbnail.status == 200 && thumbnail.header("content-type") == "image/webp", "\(thumbnail.status) \(thumbnail.headers)")
            #expect(try await http.get("/v1/campaigns/\(roof)", headers: gerry).json?["campaign"]?["cover"]?["width"] == 40)

            // Another picture replaces it (the first is deleted); what is not an image is refused naming the body.
            #expect(try await Self.put(http, roof, fiona, bytes: Array(ImageSamples.png8x8)).json?["cover"]?["width"] == 8)
            #expect(try await media() == 1)
            let bad = try await Self.put(http, roof, fiona, bytes: Array("not a picture".utf8))
            #expect(bad.status == 400 && Donors.errorFields(bad) == ["content"], "\(bad.text)")

            // Someone else's campaign is changed as if it did not exist.
            let stranger = try await Self.put(http, roof, gerry)
            let nowhere = try await Self.put(http, UUID().uuidString.lowercased(), gerry)
            #expect(stranger.status == 404 && nowhere.status == 404 && stranger.json?["detail"] == nowhere.json?["detail"], "\(stranger.text)")
            #expect(try await http.send("DELETE", "/v1/campaigns/\(roof)/cover", headers: gerry).status == 404)

            // Closed by its owner, its picture goes with its texts.
            #expect(try await http.post("/v1/campaigns/\(roof)/close", json: "{}", headers: fiona).status == 200)
            #expect(try await http.get("/v1/campaigns/\(roof)/cover", headers: gerry).status == 404)
            #expect(try await media() == 0)

            // Removed by its owner; and an erased owner's pictures go.
            let kit = try await Donors.start(http, fiona, title: "Kit for the team")
            #expect(try await Self.put(http, kit, fiona).status == 200)
            let removed = try await http.send("DELETE", "/v1/campaigns/\(kit)/cover", headers: fiona)
            #expect(removed.status == 200 && removed.json?["cover"] == nil, "\(removed.text)")
            #expect(try await media() == 0)
            #expect(try await Self.put(http, kit, fiona).status == 200)
            let context = RequestContext(attributes: .init(source: "urn:melon:auth", type: Payments.Account.Erase.type), logger: .init(label: "erase"), bus: nil)
            _ = try await ErasureHandler(database: database).erase(AccountErasure(account: donors.fiona.uuidString.lowercased(), email: "f@x.ie"), context)
            #expect(try await media() == 0)
        }
    }
}
}
