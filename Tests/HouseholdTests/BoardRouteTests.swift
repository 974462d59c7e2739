import Envelope
import Foundation
import HouseholdService
import ServiceKit
import Testing
import TestSupport

extension HouseholdStackTests {
/// The bulletin board and household photos through the gateway's routing, in process.
@Suite(.timeLimit(.minutes(2))) struct BoardRouteTests {
    let roommates = Roommates()

    static func upload(_ http: InProcessHTTP, _ base: String, _ headers: [String: String]) async throws -> String {
        let uploaded = try await http.send(
            "POST", "\(base)/photos", body: Array(ImageSamples.png40x30), headers: headers.merging(["Content-Type": "image/png"]) { $1 })
        #expect(uploaded.status == 201 && uploaded.json?["width"] == 40, "\(uploaded.text)")
        return try #require(HouseholdRouteTests.string(uploaded, "id"))
    }

    static func titles(_ reply: HTTPTestClient.Reply) -> [String] {
        guard case .array(let posts)? = reply.json?["posts"] else { return [] }
        return posts.compactMap { if case .string(let title)? = $0["title"] { title } else { nil } }
    }

    @Test func postsWithPhotosPinnedFirstAndGoneWhenExpired() async throws {
        let clock = MovableClock(stopped: true)
        try await InProcessStack.with([.household], clock: clock.clock) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            let parts = try await ServiceDefinition.household.parts(on: try #require(http.databases["household"]), clock: clock.clock)
            let photo = try await Self.upload(http, base, flat.ben)

            // Only members see the photo, full or as a thumbnail.
            let full = try await http.get("\(base)/photos/\(photo)", headers: flat.cara)
            #expect(full.status == 200 && full.header("content-type") == "image/png" && !full.body.isEmpty, "\(full.status)")
            let thumbnail = try await http.get("\(base)/photos/\(photo)?size=thumbnail", headers: flat.cara)
            #expect(thumbnail.status == 200 && thumbnail.header("content-type") == "image/webp")
            let stranger = try await http.signedIn(UUID(), as: .roommate)
            #expect(try await http.get("\(base)/photos/\(photo)", headers: stranger).status == 404)

            // Ben's party post with the photo, Ana's note pinned by her: pinned first, then the newest.
            let party = try await http.post("\(base)/posts", json: #"{"title":"Party on Saturday","photoIds":["\#(photo)"]}"#, headers: flat.ben)
            #expect(party.status == 201 && party.json?["photoIds"] == .array([.string(photo)]), "\(party.text)")
            let partyID = try #require(HouseholdRouteTests.string(party, "id"))
            _ = try await http.post("\(base)/posts", json: #"{"title":"Quiet hours after 11","pinned":true}"#, headers: flat.ana)
            _ = try await http.post("\(base)/posts", json: #"{"title":"Lost keys"}"#, headers: flat.cara)
            let board = try await http.get("\(base)/posts?limit=2", headers: flat.cara)
            #expect(Self.titles(board) == ["Quiet hours after 11", "Lost keys"], "\(board.text)")
            let next = try #require(board.json?["nextAfter"].flatMap { if case .number(let n) = $0 { Int64(n) } else { nil } })
            #expect(Self.titles(try await http.get("\(base)/posts?limit=2&after=\(next)", headers: flat.cara)) == ["Party on Saturday"])
            // A photo shows one thing: Cara cannot put Ben's on her post.
            let reused = try await http.post("\(base)/posts", json: #"{"title":"Mine","photoIds":["\#(photo)"]}"#, headers: flat.cara)
            #expect(reused.status == 400 && GroceryRouteTests.errorFields(reused) == ["photoIds[0]"], "\(reused.text)")

            // Only Ben changes his post; the owner may pin it.
            #expect(try await Roommates.patch(http, "\(base)/posts/\(partyID)", #"{"version":1,"title":"Party!"}"#, flat.cara).status == 403)
            let pinned = try await Roommates.patch(http, "\(base)/posts/\(partyID)", #"{"version":1,"pinned":true}"#, flat.ana)
            #expect(pinned.status == 200 && pinned.json?["pinned"] == true, "\(pinned.text)")
            let comment = try await http.post("\(base)/posts/\(partyID)/comments", json: #"{"text":"I'll bring crisps"}"#, headers: flat.cara)
            #expect(comment.status == 201)
            #expect(try await http.get("\(base)/posts/\(partyID)", headers: flat.ana).json?["comments"] == 1)

            // A post that expires in an hour is gone from every read once it has, and deleted by the job.
            let pizza = try await Self.upload(http, base, flat.ana)
            let expiring = try await http.post(
                "\(base)/posts",
                json: #"{"title":"Pizza in the fridge","photoIds":["\#(pizza)"],"expiresAt":"\#(RFC3339.string(from: clock.now().addingTimeInterval(3_600)))"}"#,
                headers: flat.ana)
            let expiringID = try #require(HouseholdRouteTests.string(expiring, "id"))
            #expect(Self.titles(try await http.get("\(base)/posts", headers: flat.ben)).contains("Pizza in the fridge"))
            clock.advance(.seconds(3_601))
            let (ana, ben) = (try await http.signedIn(roommates.ana, as: .roommate), try await http.signedIn(roommates.ben, as: .roommate))
            #expect(!Self.titles(try await http.get("\(base)/posts", headers: ben)).contains("Pizza in the fridge"))
            #expect(try await http.get("\(base)/posts/\(expiringID)", headers: ana).status == 404)
            #expect(try await http.get("\(base)/photos/\(pizza)", headers: ana).status == 404, "its photo is gone at once too")
            let prune = try #require(parts.jobs.first { $0.name.hasSuffix("posts.prune") })
            #expect(await prune.round() == 1)

            // A photo nothing names is deleted a day after it was uploaded; the post's stays.
            let loose = try await Self.upload(http, base, ben)
            clock.advance(.seconds(86_401))
            let photos = try #require(parts.jobs.first { $0.name.hasSuffix("photos.prune") })
            #expect(await photos.round() == 1)
            let cara = try await http.signedIn(roommates.cara, as: .roommate)
            #expect(try await http.get("\(base)/photos/\(loose)", headers: cara).status == 404)
            #expect(try await http.get("\(base)/photos/\(photo)", headers: cara).status == 200)

            // The owner deletes Ben's post: its photo goes with it.
            #expect(try await http.send("DELETE", "\(base)/posts/\(partyID)", headers: try await http.signedIn(roommates.ana, as: .roommate)).status == 200)
            #expect(try await http.get("\(base)/photos/\(photo)", headers: cara).status == 404)
        }
    }

    /// A chore's turn with before and after photos, a bill with its receipt; a photo that is not the
    /// household's is refused naming the field; deleting the chore takes its photos.
    @Test func choreTurnsAndBillsKeepTheirPhotos() async throws {
        try await InProcessStack.with([.household]) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            let (before, after, receipt) = (
                try await Self.upload(http, base, flat.ana), try await Self.upload(http, base, flat.ana), try await Self.upload(http, base, flat.ben))
            let chore = try #require(HouseholdRouteTests.string(
                try await http.post(
                    "\(base)/chores", json: #"{"title":"Hoover","frequency":"once","dueAt":"\#(RFC3339.string(from: Date().addingTimeInterval(86_400)))"}"#,
                    headers: flat.ana), "id"))
            let strange = try await http.post("\(base)/chores/\(chore)/turns", json: #"{"afterPhotoId":"\#(UUID().uuidString.lowercased())"}"#, headers: flat.ana)
            #expect(strange.status == 400 && GroceryRouteTests.errorFields(strange) == ["afterPhotoId"], "\(strange.text)")
            let done = try await http.post(
                "\(base)/chores/\(chore)/turns", json: #"{"beforePhotoId":"\#(before)","afterPhotoId":"\#(after)"}"#, headers: flat.ana)
            #expect(done.status == 201 && done.json?["beforePhotoId"] == .string(before) && done.json?["afterPhotoId"] == .string(after), "\(done.text)")
            guard case .array(let turns)? = try await http.get("\(base)/chores/\(chore)/turns", headers: flat.ben).json?["turns"] else { Issue.record("no turns"); return }
            #expect(turns.first?["afterPhotoId"] == .string(after))

            let bill = try await http.post(
                "\(base)/bills", json: #"{"title":"Hoover bags","amount":{"minorUnits":900,"currency":"EUR"},"receiptPhotoId":"\#(receipt)"}"#, headers: flat.ben)
            #expect(bill.status == 201 && bill.json?["receiptPhotoId"] == .string(receipt), "\(bill.text)")
            let taken = try await http.post(
                "\(base)/bills", json: #"{"title":"Again","amount":{"minorUnits":900,"currency":"EUR"},"receiptPhotoId":"\#(after)"}"#, headers: flat.ben)
            #expect(taken.status == 400 && GroceryRouteTests.errorFields(taken) == ["receiptPhotoId"], "a chore's photo is not a receipt: \(taken.text)")

            #expect(try await http.send("DELETE", "\(base)/chores/\(chore)", headers: flat.ana).status == 200)
            #expect(try await http.get("\(base)/photos/\(after)", headers: flat.ana).status == 404, "the chore's photos went with it")
            #expect(try await http.get("\(base)/photos/\(receipt)", headers: flat.ana).status == 200)
        }
    }
}
}
