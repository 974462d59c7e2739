import Envelope
import Foundation
import MarketplaceChatService
import ServiceKit
import Testing
import TestSupport

extension MarketplaceStackTests {
/// Bargaining through the gateway's routing, in process: offers, counter-offers, reservations.
@Suite(.timeLimit(.minutes(2))) struct OfferRouteTests {
    let traders = Traders()
    let dara = UUID()

    static func offer(_ http: InProcessHTTP, _ listing: String, _ amount: Int, _ headers: [String: String]) async throws -> HTTPTestClient.Reply {
        try await http.post("/v1/marketplace/listings/\(listing)/offers", json: #"{"amountMinorUnits":\#(amount)}"#, headers: headers)
    }

    static func act(_ http: InProcessHTTP, _ offer: String, _ verb: String, _ headers: [String: String], json: String = "{}") async throws -> HTTPTestClient.Reply {
        try await http.post("/v1/marketplace/offers/\(offer)/\(verb)", json: json, headers: headers)
    }

    @Test func anOfferIsCounteredAcceptedReservesTheListingAndTheOthersAreDeclinedWhenItSells() async throws {
        let clock = MovableClock(stopped: true)
        try await InProcessStack.with([.marketplaceChat], clock: clock.clock) { http in
            var (aoife, brian, carla) = try await traders.headers(http)
            var dara = try await http.signedIn(self.dara, as: Traders.caller("tcd", "dara"))
            let database = try #require(http.databases["marketplace-chat"])
            let parts = try await ServiceDefinition.marketplaceChat.parts(on: database, clock: clock.clock)
            let lapse = try #require(parts.jobs.first { $0.name.hasSuffix("offers.expire") })
            let bike = try await Traders.list(http, aoife, title: "Road bike", price: 10_000, category: "bikes")

            let brians = try await Self.offer(http, bike, 8_000, brian)
            #expect(brians.status == 201 && brians.json?["state"] == "open" && brians.json?["amount"]?["minorUnits"] == 8_000, "\(brians.text)")
            let brianOffer = try #require(Traders.string(brians, "id"))
            #expect(try await Self.offer(http, bike, 8_500, brian).status == 409, "one open offer per buyer")
            #expect(try await Self.offer(http, bike, 8_500, carla).status == 404, "another network")
            #expect(try await Self.offer(http, bike, 8_500, aoife).status == 400, "one's own listing")
            let daraOffer = try #require(Traders.string(try await Self.offer(http, bike, 7_000, dara), "id"))
            #expect(Traders.items(try await http.get("/v1/marketplace/listings/\(bike)/offers", headers: aoife), "offers").count == 2)
            let own = Traders.items(try await http.get("/v1/marketplace/listings/\(bike)/offers", headers: brian), "offers")
            #expect(own.count == 1 && own.first?["mine"] == true, "a buyer sees their own: \(own)")

            #expect(try await Self.act(http, brianOffer, "accept", brian).status == 409, "the seller answers an open offer")
            #expect(try await Self.act(http, brianOffer, "accept", carla).status == 404)
            let countered = try await Self.act(http, brianOffer, "counter", aoife, json: #"{"amountMinorUnits":9000}"#)
            #expect(countered.status == 200 && countered.json?["state"] == "countered" && countered.json?["counter"]?["minorUnits"] == 9_000)
            let accepted = try await Self.act(http, brianOffer, "accept", brian)
            #expect(accepted.status == 200 && accepted.json?["state"] == "accepted", "\(accepted.text)")
            #expect(try await http.get("/v1/marketplace/listings/\(bike)", headers: dara).json?["state"] == "reserved")
            #expect(!Traders.titles(try await http.get("/v1/marketplace/listings", headers: dara)).contains("Road bike"), "reserved: out of the feed")
            #expect(try await Self.act(http, daraOffer, "accept", aoife).status == 409, "reserved for Brian")

            // Sold without naming a conversation: to the buyer it is reserved for; Dara's offer is declined.
            #expect(try await http.post("/v1/marketplace/listings/\(bike)/sold", json: "{}", headers: aoife).json?["state"] == "sold")
            #expect(try await ReviewRouteTests.review(http, bike, 5, brian).status == 201, "the sale opened reviews")
            let daras = Traders.items(try await http.get("/v1/marketplace/listings/\(bike)/offers", headers: dara), "offers")
            #expect(daras.first?["state"] == "declined", "\(daras)")
            let told = try await database.sentRequests("notifications.push.send.v1").filter {
                $0["recipients"] == [.string(self.dara.uuidString.lowercased())] && $0["content"]?["alert"]?["title"] == "Sold to someone else"
            }
            #expect(told.count == 1 && told.first?["content"]?["data"]?["offerId"] == .string(daraOffer), "\(told)")

            // An unanswered offer lapses after 48 hours; a reservation without a sale after 72.
            let lamp = try await Traders.list(http, aoife, title: "Lamp", price: 1_000, category: "furniture")
            let lampOffer = try #require(Traders.string(try await Self.offer(http, lamp, 800, dara), "id"))
            let desk = try await Traders.list(http, aoife, title: "Desk", price: 3_000, category: "furniture")
            let deskOffer = try #require(Traders.string(try await Self.offer(http, desk, 2_500, brian), "id"))
            #expect(try await Self.act(http, deskOffer, "accept", aoife).json?["state"] == "accepted")
            clock.advance(.seconds(48 * 3_600 + 1))
            (aoife, brian, carla) = try await traders.headers(http)
            dara = try await http.signedIn(self.dara, as: Traders.caller("tcd", "dara"))
            #expect(Traders.items(try await http.get("/v1/marketplace/listings/\(lamp)/offers", headers: dara), "offers").first?["state"] == "expired")
            #expect(try await Self.act(http, lampOffer, "accept", aoife).status == 409)
            #expect(await lapse.round() == 1, "the lamp's offer")
            #expect(try await Self.offer(http, lamp, 900, dara).status == 201, "a lapsed offer leaves room for another")
            clock.advance(.seconds(24 * 3_600))
            (aoife, brian, carla) = try await traders.headers(http)
            #expect(await lapse.round() == 2, "the desk's accepted offer and its reservation")
            #expect(try await http.get("/v1/marketplace/listings/\(desk)", headers: brian).json?["state"] == "active")
        }
    }
}
}
