import Envelope
import Foundation
import Bus
import Contracts
import MarketplaceChatContract
@testable import MarketplaceChatService
import Media
import PostgresNIO
import PostgresSupport
import ServiceKit
import Testing
import TestSupport

extension MarketplaceStackTests {
/// Listings, the feed and search through the gateway's routing, in process.
@Suite(.timeLimit(.minutes(2))) struct ListingRouteTests {
    let traders = Traders()

    @Test func onlyUniversityMembersWhoSignedTheRulesTradeFromTheMarketplaceApp() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let aoife = try await http.signedIn(traders.aoife, as: Traders.caller("tcd", "aoife"))
            let network = try await http.get("/v1/marketplace/network", headers: aoife)
            #expect(network.status == 200 && network.json?["currency"] == "EUR" && network.json?["university"] == "tcd", "\(network.text)")
            #expect(network.text.contains("college-green") && network.text.contains("textbooks") && network.text.contains("like_new"))

            let refused: [(TestCaller, String)] = [
                (Traders.caller(nil, "dara"), "university"),
                (Traders.caller("tcd", "dara", rules: false), "marketplace-rules"),
                (Traders.caller("tcd", "dara", app: "household"), "marketplace app"),
                (Traders.caller("oxford", "dara"), "university"),
            ]
            for (caller, reason) in refused {
                let reply = try await http.get("/v1/marketplace/listings", headers: try await http.signedIn(UUID(), as: caller))
                #expect(reply.status == 403 && reply.text.contains(reason), "\(reply.text)")
            }
            #expect(try await http.get("/v1/marketplace/listings").status == 401)
        }
    }

    @Test func studentsOfOneNetworkListFindAndSellWhileAnotherNetworkSeesNothing() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (aoife, brian, carla) = try await traders.headers(http)
            let book = try await Traders.list(
                http, aoife, title: "Calculus textbook", price: 2500, description: "Stewart, 8th edition, a few notes in pencil")
            let created = try await http.get("/v1/marketplace/listings/\(book)", headers: aoife)
            #expect(created.json?["state"] == "active" && created.json?["sellerUsername"] == "aoife", "\(created.text)")
            #expect(created.json?["price"] == .object(["minorUnits": 2500, "currency": "EUR"]))

            // What a listing must name, each refusal naming its field.
            let photo = try await Traders.upload(http, aoife)
            let bad = [
                (#"{"title":"Lamp","priceMinorUnits":500,"category":"furniture","condition":"good","campus":"college-green"}"#, "photoIds"),
                (#"{"title":"Lamp","priceMinorUnits":500,"category":"lamps","condition":"good","campus":"college-green","photoIds":["\#(photo)"]}"#, "category"),
                (#"{"title":"Lamp","priceMinorUnits":500,"category":"furniture","condition":"good","campus":"belfield","photoIds":["\#(photo)"]}"#, "campus"),
                (#"{"title":"Lamp\u202E","priceMinorUnits":500,"category":"furniture","condition":"good","campus":"college-green","photoIds":["\#(photo)"]}"#, "title"),
            ]
            for (body, field) in bad {
                let reply = try await http.post("/v1/marketplace/listings", json: body, headers: aoife)
                #expect(reply.status == 400 && Traders.errorFields(reply) == [field], "\(reply.text)")
            }
            // Brian cannot put Aoife's photo on his listing.
            let theirs = try await http.post(
                "/v1/marketplace/listings",
                json: #"{"title":"Lamp","priceMinorUnits":500,"category":"furniture","condition":"good","campus":"college-green","photoIds":["\#(photo)"]}"#,
                headers: brian)
            #expect(theirs.status == 400 && Traders.errorFields(theirs) == ["photoIds"], "\(theirs.text)")

            // Brian finds it in the feed, by a word of its description and despite a typo in its title.
            #expect(Traders.titles(try await http.get("/v1/marketplace/listings", headers: brian)) == ["Calculus textbook"])
            let typo = try await http.get("/v1/marketplace/listings?q=calculas", headers: brian)
            #expect(Traders.titles(typo) == ["Calculus textbook"] && typo.json?["searchedFor"] == "calculus", "\(typo.text)")
            let words = try await http.get("/v1/marketplace/listings?q=pencil%20notes", headers: brian)
            #expect(Traders.titles(words) == ["Calculus textbook"] && words.json?["searchedFor"] == nil, "\(words.text)")
            #expect(Traders.titles(try await http.get("/v1/marketplace/listings?q=bicycle", headers: brian)) == [])
            let feed = try await http.get("/v1/marketplace/listings", headers: brian)
            guard case .string(let coverID)? = Traders.items(feed, "listings").first?["coverPhotoId"] else { Issue.record("no cover: \(feed.text)"); return }
            #expect(try await http.get("/v1/marketplace/photos/\(coverID)?size=thumbnail", headers: brian).status == 200)
            let sellers = try await http.get("/v1/marketplace/traders?q=aoi", headers: brian)
            let seller = Traders.items(sellers, "traders").first
            #expect(seller?["username"] == "aoife" && seller?["activeListings"] == 1 && seller?["sold"] == 0, "\(sellers.text)")

            // Carla, of another university, sees none of it: the same answer as for a listing that never was,
            // and a misspelling is not corrected to another network's words.
            #expect(Traders.titles(try await http.get("/v1/marketplace/listings?q=calculus", headers: carla)) == [])
            let elsewhere = try await http.get("/v1/marketplace/listings?q=calculas", headers: carla)
            #expect(Traders.titles(elsewhere) == [] && elsewhere.json?["searchedFor"] == nil, "\(elsewhere.text)")
            let hidden = try await http.get("/v1/marketplace/listings/\(book)", headers: carla)
            let never = try await http.get("/v1/marketplace/listings/\(UUID())", headers: carla)
            #expect(hidden.status == 404 && hidden.json?["detail"] == never.json?["detail"] && hidden.json?["fields"] == never.json?["fields"], "\(hidden.text)")
            #expect(try await http.get("/v1/marketplace/photos/\(coverID)", headers: carla).status == 404)
            #expect(try await http.get("/v1/marketplace/traders?q=aoife", headers: carla).json?["traders"] == .array([]))
            #expect(try await http.send("DELETE", "/v1/marketplace/listings/\(book)", headers: carla).status == 404)

            // Only Aoife changes it, naming the version she read; to Brian her routes answer as for nothing.
            #expect(try await Traders.patch(http, "/v1/marketplace/listings/\(book)", #"{"version":1,"priceMinorUnits":1}"#, brian).status == 404)
            #expect(try await http.send("DELETE", "/v1/marketplace/listings/\(book)", headers: brian).status == 404)
            #expect(try await http.post("/v1/marketplace/listings/\(book)/sold", json: "{}", headers: brian).status == 404)
            let cheaper = try await Traders.patch(http, "/v1/marketplace/listings/\(book)", #"{"version":1,"priceMinorUnits":2000}"#, aoife)
            #expect(cheaper.status == 200 && cheaper.json?["version"] == 2, "\(cheaper.text)")
            let stale = try await Traders.patch(http, "/v1/marketplace/listings/\(book)", #"{"version":1,"priceMinorUnits":1500}"#, aoife)
            #expect(stale.status == 409 && stale.json?["current"]?["version"] == 2, "\(stale.text)")

            // Sold: out of the feed, in her history; Brian may still read it.
            let sold = try await http.post("/v1/marketplace/listings/\(book)/sold", json: "{}", headers: aoife)
            #expect(sold.status == 200 && sold.json?["state"] == "sold" && sold.json?["soldAt"] != nil, "\(sold.text)")
            #expect(Traders.titles(try await http.get("/v1/marketplace/listings", headers: brian)) == [])
            #expect(Traders.titles(try await http.get("/v1/marketplace/me/listings?state=sold", headers: aoife)) == ["Calculus textbook"])
            #expect(try await http.get("/v1/marketplace/listings/\(book)", headers: brian).status == 200)
            #expect(try await Traders.patch(http, "/v1/marketplace/listings/\(book)", #"{"version":3,"title":"Calculus"}"#, aoife).status == 409)

            // Removed: gone for everyone, its photos with it.
            #expect(try await http.send("DELETE", "/v1/marketplace/listings/\(book)", headers: aoife).json?["removed"] == true)
            #expect(try await http.get("/v1/marketplace/listings/\(book)", headers: aoife).status == 404)
            #expect(try await http.get("/v1/marketplace/photos/\(coverID)", headers: aoife).status == 404)
            #expect(try await http.send("DELETE", "/v1/marketplace/listings/\(book)", headers: aoife).json?["removed"] == false)
        }
    }

    /// A misspelt word is searched as every word of the titles near it, the nearest first: "calculas"
    /// finds the calculator and the calculus book, not the calendar. (It was searched as the nearest
    /// word alone: "calculator", which shares 7 of 13 trigrams with it, where "calculus" shares 6 of 12.)
    @Test func aTypoFindsEveryCloseWordOfTheTitlesTheClosestFirst() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (aoife, brian, _) = try await traders.headers(http)
            let database = try #require(http.databases["marketplace-chat"])
            _ = try await Traders.list(http, aoife, title: "Calculus textbook", price: 2500)
            _ = try await Traders.list(http, aoife, title: "Calculator", price: 1500, category: "electronics")
            _ = try await Traders.list(http, aoife, title: "Wall calendar", price: 300, category: "other")
            let nearer = try await ChatRouteTests.count(
                "SELECT (extensions.similarity('calculator', 'calculas') > extensions.similarity('calculus', 'calculas'))::int", in: database)
            let (first, second) = nearer == 1 ? (("Calculator", "calculator"), ("Calculus textbook", "calculus"))
                : (("Calculus textbook", "calculus"), ("Calculator", "calculator"))

            let found = try await http.get("/v1/marketplace/listings?q=calculas", headers: brian)
            #expect(Traders.titles(found) == [first.0, second.0], "\(found.text)")
            #expect(found.json?["searchedFor"] == .string("\(first.1) or \(second.1)"), "\(found.text)")
            // A page at a time: each names what found it, and the second goes on where the first stopped.
            let one = try await http.get("/v1/marketplace/listings?q=calculas&limit=1", headers: brian)
            #expect(Traders.titles(one) == [first.0] && one.json?["searchedFor"] == .string(first.1), "\(one.text)")
            let after = try #require(Traders.string(one, "nextAfter"))
            let two = try await http.get("/v1/marketplace/listings?q=calculas&limit=1&after=\(after)", headers: brian)
            #expect(Traders.titles(two) == [second.0] && two.json?["searchedFor"] == .string(second.1), "\(two.text)")
            // Filters still hold: of the close words' listings, the cheap one only.
            let cheap = try await http.get("/v1/marketplace/listings?q=calculas&maxPrice=2000", headers: brian)
            #expect(Traders.titles(cheap) == ["Calculator"] && cheap.json?["searchedFor"] == "calculator", "\(cheap.text)")
        }
    }

    @Test func feedFiltersSortsAndPagesThatStayPutWhileNewListingsArrive() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (aoife, brian, _) = try await traders.headers(http)
            for (title, price, category) in [("Desk", 4000, "furniture"), ("Kettle", 0, "kitchen"), ("Chair", 1500, "furniture"),
                                             ("Toaster", 900, "kitchen"), ("Bookshelf", 2500, "furniture")] {
                _ = try await Traders.list(http, aoife, title: title, price: price, category: category)
            }
            let first = try await http.get("/v1/marketplace/listings?limit=2", headers: brian)
            #expect(Traders.titles(first) == ["Bookshelf", "Toaster"], "\(first.text)")
            // A listing arriving between pages goes to the top; the next page goes on where the first stopped.
            _ = try await Traders.list(http, aoife, title: "Lamp", price: 700, category: "furniture")
            let after = try #require(Traders.string(first, "nextAfter"))
            let second = try await http.get("/v1/marketplace/listings?limit=2&after=\(after)", headers: brian)
            #expect(Traders.titles(second) == ["Chair", "Kettle"], "\(second.text)")
            let third = try await http.get("/v1/marketplace/listings?limit=2&after=\(try #require(Traders.string(second, "nextAfter")))", headers: brian)
            #expect(Traders.titles(third) == ["Desk"] && third.json?["nextAfter"] == nil, "\(third.text)")

            let cheapFurniture = try await http.get("/v1/marketplace/listings?category=furniture&maxPrice=2500&sort=price_asc", headers: brian)
            #expect(Traders.titles(cheapFurniture) == ["Lamp", "Chair", "Bookshelf"], "\(cheapFurniture.text)")
            let dearest = try await http.get("/v1/marketplace/listings?sort=price_desc&limit=2", headers: brian)
            #expect(Traders.titles(dearest) == ["Desk", "Bookshelf"])
            let next = try #require(Traders.string(dearest, "nextAfter"))
            #expect(Traders.titles(try await http.get("/v1/marketplace/listings?sort=price_desc&limit=2&after=\(next)", headers: brian)) == ["Chair", "Toaster"])
            #expect(Traders.titles(try await http.get("/v1/marketplace/listings?free=true", headers: brian)) == ["Kettle"])

            // Requests that cannot be answered say which field is wrong.
            let refusals = [
                ("sort=relevance", "sort"), ("minPrice=500&maxPrice=100", "maxPrice"), ("after=bm90LWEtY3Vyc29y", "after"),
                ("sort=newest&after=\(next)", "after"), ("limit=0", "limit"),
            ]
            for (query, field) in refusals {
                let reply = try await http.get("/v1/marketplace/listings?\(query)", headers: brian)
                #expect(reply.status == 400 && Traders.errorFields(reply).contains(field), "\(query): \(reply.text)")
            }
            // A forged relevance cursor whose number PostgreSQL would not take as a real: no 500.
            let forged = Data("relevance~1e-50~5".utf8).base64EncodedString()
            #expect(try await http.get("/v1/marketplace/listings?q=desk&after=\(forged)", headers: brian).status == 200)
            let removed = try await http.get("/v1/marketplace/me/listings?state=removed", headers: aoife)
            #expect(removed.status == 400 && Traders.errorFields(removed) == ["state"], "removed listings are gone from every read: \(removed.text)")
        }
    }

    @Test func draftsArePublishedExpireAfterThirtyDaysAndAreRenewedInTheirLastWeek() async throws {
        let clock = MovableClock(stopped: true)
        try await InProcessStack.with([.marketplaceChat], clock: clock.clock) { http in
            let (aoife, brian, _) = try await traders.headers(http)
            let database = try #require(http.databases["marketplace-chat"])
            let parts = try await ServiceDefinition.marketplaceChat.parts(on: database, clock: clock.clock)
            let expire = try #require(parts.jobs.first { $0.name.hasSuffix("listings.expire") })
            let draft = try await http.post(
                "/v1/marketplace/listings",
                json: #"{"title":"Road bike","priceMinorUnits":15000,"category":"bikes","condition":"fair","campus":"college-green","draft":true}"#,
                headers: aoife)
            #expect(draft.status == 201 && draft.json?["state"] == "draft", "\(draft.text)")
            let bike = try #require(Traders.string(draft, "id"))
            #expect(try await http.get("/v1/marketplace/listings/\(bike)", headers: brian).status == 404, "a draft is its seller's alone")
            #expect(try await http.post("/v1/marketplace/listings/\(bike)/publish", json: "{}", headers: aoife).status == 409, "no photo yet")
            let photo = try await Traders.upload(http, aoife)
            #expect(try await Traders.patch(http, "/v1/marketplace/listings/\(bike)", #"{"version":1,"photoIds":["\#(photo)"]}"#, aoife).status == 200)
            // A draft's words are not a search's to find, nor to be corrected to.
            let drafted = try await http.get("/v1/marketplace/listings?q=road%20bicke", headers: brian)
            #expect(Traders.titles(drafted) == [] && drafted.json?["searchedFor"] == nil, "\(drafted.text)")
            // Published; a retry with the same key gets the same answer, not a refused renewal.
            let keyed = aoife.merging(["Idempotency-Key": "publish-bike"]) { $1 }
            let published = try await http.post("/v1/marketplace/listings/\(bike)/publish", json: "{}", headers: keyed)
            #expect(published.status == 200 && published.json?["state"] == "active", "\(published.text)")
            let retried = try await http.post("/v1/marketplace/listings/\(bike)/publish", json: "{}", headers: keyed)
            #expect(retried.status == 200 && retried.json?["version"] == published.json?["version"], "\(retried.text)")
            let corrected = try await http.get("/v1/marketplace/listings?q=road%20bicke", headers: brian)
            #expect(Traders.titles(corrected) == ["Road bike"] && corrected.json?["searchedFor"] == "road bike", "\(corrected.text.suffix(300))")
            #expect(Traders.titles(try await http.get("/v1/marketplace/listings", headers: brian)) == ["Road bike"])
            let early = try await http.post("/v1/marketplace/listings/\(bike)/publish", json: "{}", headers: aoife)
            #expect(early.status == 409 && early.text.contains("last 7 days"), "\(early.text)")

            // Twenty-four days on it may be renewed: thirty days from then.
            clock.advance(.seconds(24 * 86_400))
            let renewed = try await http.post("/v1/marketplace/listings/\(bike)/publish", json: "{}", headers: try await traders.headers(http).aoife)
            #expect(renewed.status == 200, "\(renewed.text)")
            // Thirty-one days later it is out of the feed at once, and expired once the job has run.
            clock.advance(.seconds(31 * 86_400))
            let (aoifeLater, brianLater, _) = try await traders.headers(http)
            #expect(Traders.titles(try await http.get("/v1/marketplace/listings", headers: brianLater)) == [])
            #expect(await expire.round() == 1)
            #expect(try await http.get("/v1/marketplace/listings/\(bike)", headers: aoifeLater).json?["state"] == "expired")
            #expect(try await http.get("/v1/marketplace/listings/\(bike)", headers: brianLater).status == 404)
            #expect(try await http.post("/v1/marketplace/listings/\(bike)/publish", json: "{}", headers: aoifeLater).json?["state"] == "active")
        }
    }

    @Test func anErasedAccountsListingsPhotosAndNameAreGone() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (aoife, brian, _) = try await traders.headers(http)
            _ = try await Traders.list(http, aoife, title: "Desk lamp", price: 700, category: "furniture")
            let loose = try await Traders.upload(http, aoife)
            let database = try #require(http.databases["marketplace-chat"])
            #expect(try await Traders.erase(traders.aoife, in: database) == .init(listingsDeleted: 1, photosDeleted: 2))
            #expect(try await Traders.erase(traders.aoife, in: database) == .init(listingsDeleted: 0, photosDeleted: 0))
            #expect(Traders.titles(try await http.get("/v1/marketplace/listings", headers: brian)) == [])
            #expect(try await http.get("/v1/marketplace/traders?q=aoife", headers: brian).json?["traders"] == .array([]))
            #expect(try await http.get("/v1/marketplace/photos/\(loose)", headers: aoife).status == 404)
            let left = try await database.transaction { connection in
                try await connection.query("SELECT count(*) FROM media_objects", logger: database.logger).decode(Int.self).first { _ in true }
            }
            #expect(left == 0, "no image of hers is kept")
        }
    }
}
}
