import Envelope
import Foundation
import MarketplaceChatService
import PostgresSupport
import ServiceKit
import Testing
import TestSupport

extension MarketplaceStackTests {
/// Following sellers and saved searches, and the pushes a new listing sends, in process.
@Suite(.timeLimit(.minutes(2))) struct FollowRouteTests {
    let traders = Traders()

    @Test func followersAndSavedSearchesHearOfANewListingOnceAndTheBlockedNever() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (aoife, brian, carla) = try await traders.headers(http)
            let (dara, eve) = (UUID(), UUID())
            let daraHeaders = try await http.signedIn(dara, as: Traders.caller("tcd", "dara"))
            let eveHeaders = try await http.signedIn(eve, as: Traders.caller("tcd", "eve"))
            let aoifeID = traders.aoife.uuidString.lowercased()
            // Aoife must have traded to be followed: her first listing, before anyone follows.
            _ = try await Traders.list(http, aoife, title: "Kettle", price: 0, category: "kitchen")

            // Brian follows her and saved a search that also finds the book: one push, as a follower.
            let followed = try await http.send("PUT", "/v1/marketplace/following/\(aoifeID)", headers: brian)
            #expect(followed.status == 200 && followed.json?["following"] == true, "\(followed.text)")
            #expect(Traders.items(try await http.get("/v1/marketplace/following", headers: brian), "traders").first?["username"] == "aoife")
            #expect(try await http.post("/v1/marketplace/saved-searches", json: #"{"q":"calculus"}"#, headers: brian).status == 201)
            // Dara saved a search with a typo and a price cap; Eve too, but Aoife blocked Eve.
            let saved = try await http.post("/v1/marketplace/saved-searches", json: #"{"q":"calculas","maxPrice":3000}"#, headers: daraHeaders)
            #expect(saved.status == 201 && saved.json?["maxPrice"] == 3000, "\(saved.text)")
            #expect(try await http.post("/v1/marketplace/saved-searches", json: #"{"category":"textbooks"}"#, headers: eveHeaders).status == 201)
            _ = try await http.send("PUT", "/v1/marketplace/blocks/\(eve.uuidString.lowercased())", headers: aoife)
            // Carla, of another network, can neither follow Aoife nor hear of her listings.
            let stranger = try await http.send("PUT", "/v1/marketplace/following/\(aoifeID)", headers: carla)
            let nobody = try await http.send("PUT", "/v1/marketplace/following/\(UUID())", headers: carla)
            #expect(stranger.status == 404 && stranger.json?["detail"] == nobody.json?["detail"], "\(stranger.text)")
            #expect(try await http.post("/v1/marketplace/saved-searches", json: #"{"q":"calculus"}"#, headers: carla).status == 201)
            // A search of everything would push every listing.
            for body in ["{}", #"{"minPrice":0}"#, #"{"maxPrice":10000000}"#] {
                let everything = try await http.post("/v1/marketplace/saved-searches", json: body, headers: carla)
                #expect(everything.status == 400, "\(body): \(everything.text)")
            }

            let database = try #require(http.databases["marketplace-chat"])
            let book = try await Traders.list(http, aoife, title: "Calculus textbook", price: 2500, description: "Stewart")
            func pushesOf(_ listing: String) async throws -> [JSONValue] {
                try await database.sentRequests("notifications.push.send.v1").filter { $0["content"]?["data"]?["listingId"] == .string(listing) }
            }
            let pushes = try await pushesOf(book)
            let byEvent = Dictionary(uniqueKeysWithValues: pushes.compactMap { push -> (String, JSONValue)? in
                guard case .string(let event)? = push["content"]?["eventType"] else { return nil }
                return (event, push["recipients"] ?? .null)
            })
            #expect(byEvent["marketplace.followed.posted"] == .array([.string(traders.brian.uuidString.lowercased())]), "\(pushes)")
            #expect(byEvent["marketplace.wishlist.match"] == .array([.string(dara.uuidString.lowercased())]), "\(pushes)")
            #expect(pushes.allSatisfy { $0["content"]?["alert"]?["body"] == "Calculus textbook" })

            // A draft published later is announced then; a renewal is not announced again.
            let draft = try await http.post(
                "/v1/marketplace/listings",
                json: #"{"title":"Calculus workbook","priceMinorUnits":900,"category":"textbooks","condition":"good","campus":"college-green","draft":true}"#,
                headers: aoife)
            let draftID = try #require(Traders.string(draft, "id"))
            let photo = try await Traders.upload(http, aoife)
            _ = try await Traders.patch(http, "/v1/marketplace/listings/\(draftID)", #"{"version":1,"photoIds":["\#(photo)"]}"#, aoife)
            #expect(try await pushesOf(draftID).isEmpty, "a draft is announced when published")
            #expect(try await http.post("/v1/marketplace/listings/\(draftID)/publish", json: "{}", headers: aoife).status == 200)
            #expect(try await pushesOf(draftID).count == 2, "to the follower, and to the search that finds it")

            // Unfollowing and deleting the search end it; deleting it again is 404.
            #expect(try await http.send("DELETE", "/v1/marketplace/following/\(aoifeID)", headers: brian).json?["following"] == false)
            let searchID = try #require(Traders.string(saved, "id"))
            #expect(try await http.send("DELETE", "/v1/marketplace/saved-searches/\(searchID)", headers: brian).status == 404, "not Brian's")
            #expect(try await http.send("DELETE", "/v1/marketplace/saved-searches/\(searchID)", headers: daraHeaders).json?["deleted"] == true)
            #expect(try await http.send("DELETE", "/v1/marketplace/saved-searches/\(searchID)", headers: daraHeaders).status == 404)
            #expect(Traders.items(try await http.get("/v1/marketplace/saved-searches", headers: daraHeaders), "savedSearches").isEmpty)
        }
    }
}
}
