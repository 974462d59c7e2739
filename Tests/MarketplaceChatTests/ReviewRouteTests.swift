import Envelope
import Foundation
import MarketplaceChatService
import Testing
import TestSupport

extension MarketplaceStackTests {
/// A sale to the buyer of a conversation, and the double-blind reviews it opens, through the
/// gateway's routing, in process.
@Suite(.timeLimit(.minutes(2))) struct ReviewRouteTests {
    let traders = Traders()

    /// Lists an item, has `buyer` ask about it and sells it to them; the listing's id.
    static func sell(_ http: InProcessHTTP, _ title: String, from seller: [String: String], to buyer: [String: String]) async throws -> String {
        let listing = try await Traders.list(http, seller, title: title, price: 1500, category: "furniture")
        let conversation = try #require(Traders.string(
            try await http.post("/v1/conversations", json: #"{"listingId":"\#(listing)"}"#, headers: buyer), "id"))
        let sold = try await http.post("/v1/marketplace/listings/\(listing)/sold", json: #"{"conversationId":"\#(conversation)"}"#, headers: seller)
        #expect(sold.status == 200 && sold.json?["state"] == "sold", "\(sold.text)")
        return listing
    }

    static func review(_ http: InProcessHTTP, _ listing: String, _ stars: Int, _ headers: [String: String]) async throws -> HTTPTestClient.Reply {
        try await http.post("/v1/marketplace/listings/\(listing)/review", json: #"{"stars":\#(stars),"text":"Fine\nthanks"}"#, headers: headers)
    }

    @Test func aSaleToABuyerOpensDoubleBlindReviewsForFourteenDays() async throws {
        let clock = MovableClock(stopped: true)
        try await InProcessStack.with([.marketplaceChat], clock: clock.clock) { http in
            var (aoife, brian, carla) = try await traders.headers(http)
            let aoifeID = traders.aoife.uuidString.lowercased(), brianID = traders.brian.uuidString.lowercased()
            let desk = try await Self.sell(http, "Desk", from: aoife, to: brian)

            // Selling to someone who never asked about it, and reviewing a sale of others, are refused.
            let lamp = try await Traders.list(http, aoife, title: "Lamp", price: 500, category: "furniture")
            let stranger = try await http.post("/v1/marketplace/listings/\(lamp)/sold", json: #"{"conversationId":"\#(UUID())"}"#, headers: aoife)
            #expect(stranger.status == 400 && Traders.errorFields(stranger) == ["conversationId"], "\(stranger.text)")
            #expect(try await Self.review(http, desk, 5, carla).status == 404)
            #expect(try await http.post("/v1/marketplace/listings/\(lamp)/sold", json: "{}", headers: aoife).status == 200)
            #expect(try await Self.review(http, lamp, 5, brian).status == 404, "sold elsewhere: no one to review")

            // Double-blind: Brian's review waits for Aoife's.
            let first = try await Self.review(http, desk, 5, brian)
            #expect(first.status == 201 && first.json?["shown"] == false && first.json?["review"]?["role"] == "buyer", "\(first.text)")
            #expect(try await Self.review(http, desk, 1, brian).status == 409, "once")
            let hidden = try await http.get("/v1/marketplace/traders/\(aoifeID)/reviews", headers: brian)
            #expect(hidden.json?["rating"]?["count"] == 0 && Traders.items(hidden, "reviews").isEmpty, "\(hidden.text)")
            let second = try await Self.review(http, desk, 4, aoife)
            #expect(second.status == 201 && second.json?["shown"] == true, "\(second.text)")
            let shown = try await http.get("/v1/marketplace/traders/\(aoifeID)/reviews", headers: brian)
            #expect(shown.json?["rating"]?["average"] == 5 && Traders.items(shown, "reviews").first?["author"]?["username"] == "brian", "\(shown.text)")
            #expect(Traders.items(shown, "reviews").first?["text"] == "Fine\nthanks")

            // Unanswered, a review shows when the 14 days end; then the window is closed.
            let chair = try await Self.sell(http, "Chair", from: aoife, to: brian)
            #expect(try await Self.review(http, chair, 2, brian).status == 201)
            clock.advance(.seconds(14 * 86_400 + 1))
            (aoife, brian, carla) = try await traders.headers(http)
            let rated = try await http.get("/v1/marketplace/traders/\(aoifeID)/reviews", headers: brian)
            #expect(rated.json?["rating"] == ["count": 2, "average": .number(3.5), "stars": [0, 1, 0, 0, 1]], "\(rated.text)")
            let late = try await Self.review(http, chair, 3, aoife)
            #expect(late.status == 409, "\(late.text)")
            #expect(try await http.get("/v1/marketplace/traders/\(aoifeID)/reviews", headers: carla).status == 404, "another network")

            // Brian's account is erased: his reviews of Aoife stay without his name; Aoife's of him go.
            _ = try await Traders.erase(traders.brian, in: try #require(http.databases["marketplace-chat"]))
            let kept = Traders.items(try await http.get("/v1/marketplace/traders/\(aoifeID)/reviews", headers: aoife), "reviews")
            #expect(kept.count == 2 && kept.allSatisfy { $0["author"]?["username"] == "a deleted user" }, "\(kept)")
            #expect(try await http.get("/v1/marketplace/traders/\(brianID)/reviews", headers: aoife).status == 404)
        }
    }

    /// Within the 14 days, both sides' reviews show because each answered the other. Erasing one side
    /// takes the review of them; their own review of the other stays shown and counted, without
    /// their name or words. (It used to be hidden again, the other's rating dropping a review.)
    @Test func anErasedTradersReviewStaysShownAndCountedWithoutTheirNameOrWords() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (aoife, brian, _) = try await traders.headers(http)
            let database = try #require(http.databases["marketplace-chat"])
            let aoifeID = traders.aoife.uuidString.lowercased(), brianID = traders.brian.uuidString.lowercased()
            let desk = try await Self.sell(http, "Desk", from: aoife, to: brian)
            #expect(try await Self.review(http, desk, 4, aoife).json?["shown"] == false)
            #expect(try await Self.review(http, desk, 5, brian).json?["shown"] == true)
            // Brian sells Aoife a chair; neither has reviewed that sale yet.
            let chair = try await Self.sell(http, "Chair", from: brian, to: aoife)
            let rating: JSONValue = ["count": 1, "average": 4, "stars": [0, 0, 0, 1, 0]]
            #expect(try await http.get("/v1/marketplace/traders/\(brianID)/reviews", headers: brian).json?["rating"] == rating)

            _ = try await Traders.erase(traders.aoife, in: database)
            let after = try await http.get("/v1/marketplace/traders/\(brianID)/reviews", headers: brian)
            #expect(after.json?["rating"] == rating, "\(after.text)")
            let kept = Traders.items(after, "reviews")
            #expect(kept.count == 1 && kept.first?["stars"] == 4 && kept.first?["author"]?["username"] == "a deleted user", "\(after.text)")
            #expect(kept.first?["author"]?["id"] == nil && kept.first?["text"] == "" && kept.first?["listingTitle"] == "", "her words go: \(after.text)")

            // Brian's review of her went with her: her reviews answer as no one's do, and her purchase is no one's to review.
            let hers = try await http.get("/v1/marketplace/traders/\(aoifeID)/reviews", headers: brian)
            let nobody = try await http.get("/v1/marketplace/traders/\(UUID())/reviews", headers: brian)
            #expect(hers.status == 404 && hers.json?["detail"] == nobody.json?["detail"], "\(hers.text)")
            #expect(try await Self.review(http, chair, 5, brian).status == 404)
            let left = try await ChatRouteTests.count(
                """
                SELECT (SELECT count(*) FROM reviews WHERE author = '\(aoifeID)' OR subject = '\(aoifeID)' OR text <> '')
                     + (SELECT count(*) FROM listings WHERE buyer = '\(aoifeID)')
                """, in: database)
            #expect(left == 0, "nothing names her or keeps her words")
        }
    }
}
}
