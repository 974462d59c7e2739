import Envelope
import Foundation
import MarketplaceChatService
import ServiceKit
import Testing
import TestSupport

extension MarketplaceStackTests {
/// Blocks and safe meeting spots through the gateway's routing, in process.
@Suite(.timeLimit(.minutes(2))) struct PeopleRouteTests {
    let traders = Traders()

    /// Nebula, which has no marketplace, blocks from its chat: the same block, everywhere.
    @Test func nebulaBlocksFromItsChatAndTheBlockHoldsUntilLifted() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (danaID, eoinID) = (UUID(), UUID())
            let dana = try await http.signedIn(danaID, as: ChatRouteTests.nebula("dana"))
            let eoin = try await http.signedIn(eoinID, as: ChatRouteTests.nebula("eoin"))
            _ = try await http.get("/v1/conversations", headers: eoin)
            let id = try #require(Traders.string(try await http.post("/v1/conversations", json: #"{"username":"eoin"}"#, headers: dana), "id"))
            let eoinPath = "/v1/chat/blocks/\(eoinID.uuidString.lowercased())"

            #expect(try await http.send("PUT", "/v1/chat/blocks/\(danaID.uuidString.lowercased())", headers: dana).status == 400, "not herself")
            let odd = try await http.send("PUT", "/v1/chat/blocks/not-an-id", headers: dana)
            #expect(odd.status == 400 && Traders.errorFields(odd) == ["accountId"], "\(odd.text)")
            // Anyone may be blocked, but a block teaches no name of someone never chatted with.
            #expect(try await http.send("PUT", "/v1/chat/blocks/\(UUID().uuidString.lowercased())", headers: dana).status == 200)
            let blocked = try await http.send("PUT", eoinPath, headers: dana)
            #expect(blocked.status == 200 && blocked.json?["blocked"] == true, "\(blocked.text)")
            let list = Traders.items(try await http.get("/v1/chat/blocks", headers: dana), "blocked")
            #expect(list.map { $0["username"] } == [.string("eoin"), nil], "\(list)")

            // Neither finds, sees nor messages the other.
            let hidden = try await http.post("/v1/conversations", json: #"{"username":"dana"}"#, headers: eoin)
            let nobody = try await http.post("/v1/conversations", json: #"{"username":"nobody"}"#, headers: eoin)
            #expect(hidden.status == 404 && hidden.json?["detail"] == nobody.json?["detail"], "\(hidden.text)")
            for who in [dana, eoin] {
                #expect(Traders.items(try await http.get("/v1/conversations", headers: who), "conversations").isEmpty)
                #expect(try await http.post("/v1/conversations/\(id)/messages", json: #"{"text":"hi"}"#, headers: who).status == 404)
            }
            // Lifted: the conversation is back.
            #expect(try await http.send("DELETE", eoinPath, headers: dana).json?["blocked"] == false)
            #expect(try await http.post("/v1/conversations/\(id)/messages", json: #"{"text":"hi"}"#, headers: eoin).status == 201)
        }
    }

    @Test func aBlockHidesEachFromTheOtherOnEveryRouteBothWaysUntilLifted() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (aoife, brian, carla) = try await traders.headers(http)
            let desk = try await Traders.list(http, aoife, title: "Desk", price: 4000, category: "furniture")
            let lamp = try await Traders.list(http, brian, title: "Desk lamp", price: 700, category: "furniture")
            let deskPhoto = try #require(Traders.items(try await http.get("/v1/marketplace/listings/\(desk)", headers: aoife), "photoIds").first)
            let lampPhoto = try #require(Traders.items(try await http.get("/v1/marketplace/listings/\(lamp)", headers: brian), "photoIds").first)
            guard case .string(let deskPhotoID) = deskPhoto, case .string(let lampPhotoID) = lampPhoto else { Issue.record("no photos"); return }

            let aoifeID = traders.aoife.uuidString.lowercased()
            #expect(try await http.send("PUT", "/v1/marketplace/following/\(aoifeID)", headers: brian).status == 200)
            // Carla may block anyone, but learns no name of another network by it.
            #expect(try await http.send("PUT", "/v1/marketplace/blocks/\(aoifeID)", headers: carla).status == 200)
            let carlas = Traders.items(try await http.get("/v1/marketplace/blocks", headers: carla), "blocked")
            #expect(carlas.count == 1 && carlas.first?["username"] == nil, "\(carlas)")
            let blocked = try await http.send("PUT", "/v1/marketplace/blocks/\(traders.brian.uuidString.lowercased())", headers: aoife)
            #expect(blocked.status == 200 && blocked.json?["blocked"] == true, "\(blocked.text)")
            #expect(Traders.items(try await http.get("/v1/marketplace/blocks", headers: aoife), "blocked").first?["username"] == "brian")
            let me = try await http.send("PUT", "/v1/marketplace/blocks/\(traders.aoife.uuidString.lowercased())", headers: aoife)
            #expect(me.status == 400 && Traders.errorFields(me) == ["accountId"], "\(me.text)")

            // Each way: the other's listings, their photos and their name are gone, as if they never were.
            let sides: [([String: String], String, String, String)] = [(brian, desk, deskPhotoID, "aoife"), (aoife, lamp, lampPhotoID, "brian")]
            for (viewer, listing, photo, name) in sides {
                #expect(Traders.titles(try await http.get("/v1/marketplace/listings?q=desk", headers: viewer)).count == 1, "only their own")
                #expect(Traders.titles(try await http.get("/v1/marketplace/listings?category=furniture", headers: viewer)).count == 1)
                let hidden = try await http.get("/v1/marketplace/listings/\(listing)", headers: viewer)
                let never = try await http.get("/v1/marketplace/listings/\(UUID())", headers: viewer)
                #expect(hidden.status == 404 && hidden.json?["detail"] == never.json?["detail"], "\(hidden.text)")
                #expect(try await http.get("/v1/marketplace/photos/\(photo)", headers: viewer).status == 404)
                #expect(Traders.items(try await http.get("/v1/marketplace/traders?q=\(name)", headers: viewer), "traders").isEmpty)
            }

            // Brian's list of those he follows does not name her while a block stands.
            #expect(Traders.items(try await http.get("/v1/marketplace/following", headers: brian), "traders").isEmpty)

            let lifted = try await http.send("DELETE", "/v1/marketplace/blocks/\(traders.brian.uuidString.lowercased())", headers: aoife)
            #expect(lifted.status == 200 && lifted.json?["blocked"] == false, "\(lifted.text)")
            #expect(Set(Traders.titles(try await http.get("/v1/marketplace/listings?q=desk", headers: brian))) == ["Desk", "Desk lamp"])
            #expect(try await http.get("/v1/marketplace/listings/\(lamp)", headers: aoife).status == 200)
            #expect(Traders.items(try await http.get("/v1/marketplace/following", headers: brian), "traders").first?["username"] == "aoife")
        }
    }

    @Test func eachNetworkHasItsSafeSpotsAsData() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (aoife, _, carla) = try await traders.headers(http)
            let trinity = try await http.get("/v1/marketplace/spots", headers: aoife)
            #expect(trinity.status == 200 && Traders.items(trinity, "spots").first?["campus"] == "college-green", "\(trinity.text)")
            #expect(Traders.items(trinity, "spots").allSatisfy { $0["latitude"] != nil && $0["longitude"] != nil })
            let ucd = try await http.get("/v1/marketplace/spots?campus=belfield", headers: carla)
            #expect(Traders.items(ucd, "spots").count == 1 && Traders.items(ucd, "spots").first?["name"] == "Student Centre", "\(ucd.text)")
            let other = try await http.get("/v1/marketplace/spots?campus=belfield", headers: aoife)
            #expect(other.status == 400 && Traders.errorFields(other) == ["campus"], "another network's campus: \(other.text)")
        }
    }
}
}
