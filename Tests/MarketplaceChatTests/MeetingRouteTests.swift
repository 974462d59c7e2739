import Envelope
import Foundation
@testable import MarketplaceChatService
import ServiceKit
import Testing
import TestSupport

extension MarketplaceStackTests {
/// Meeting in person (item 6): a place proposed in chat and confirmed by the other side, and a live
/// location shared for up to an hour.
@Suite(.timeLimit(.minutes(3))) struct MeetingRouteTests {
    let traders = Traders()
    let dana = UUID(), eoin = UUID()

    static func date(_ value: JSONValue?) -> Date? {
        if case .string(let text)? = value { RFC3339.date(from: text) } else { nil }
    }

    @Test func aProposedMeetingIsConfirmedOnceByTheOtherSide() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (aoife, brian, carla) = try await traders.headers(http)
            let database = try #require(http.databases["marketplace-chat"])
            let desk = try await Traders.list(http, aoife, title: "Desk", price: 4000, category: "furniture")
            let opened = try await http.post("/v1/conversations", json: #"{"listingId":"\#(desk)"}"#, headers: brian)
            let conversation = try #require(Traders.string(opened, "id"))
            let proposed = try await http.post("/v1/conversations/\(conversation)/messages", json: #"{"meeting":{"spotId":"front-arch"}}"#, headers: aoife)
            let meeting = try #require(Traders.string(proposed, "id"), "\(proposed.text)")
            let text = try #require(Traders.string(try await http.post("/v1/conversations/\(conversation)/messages", json: #"{"text":"Friday?"}"#, headers: aoife), "id"))
            let answer = { @Sendable (message: String, answer: String, headers: [String: String]) in
                try await http.post("/v1/conversations/\(conversation)/messages/\(message)/answer", json: #"{"answer":"\#(answer)"}"#, headers: headers)
            }

            // Only the side that did not propose it answers, and only a meeting; anything else is not found alike.
            let own = try await answer(meeting, "accepted", aoife), unknown = try await answer(UUID().uuidString, "accepted", brian)
            #expect(own.status == 404 && own.json?["detail"] == unknown.json?["detail"], "\(own.text)")
            #expect(try await answer(text, "accepted", brian).status == 404)
            #expect(try await answer(meeting, "accepted", carla).status == 404, "not her conversation")
            let odd = try await answer(meeting, "maybe", brian)
            #expect(odd.status == 400 && Traders.errorFields(odd) == ["answer"], "\(odd.text)")

            let accepted = try await answer(meeting, "accepted", brian)
            #expect(accepted.status == 200 && accepted.json?["meetingAnswer"] == "accepted" && accepted.json?["mine"] == false, "\(accepted.text)")
            #expect(accepted.json?["meetingAnsweredAt"] != nil && accepted.json?["meeting"]?["name"] != nil)
            // The proposer sees it agreed; the same answer again changes nothing, another is a conflict.
            let seen = Traders.items(try await http.get("/v1/conversations/\(conversation)/messages", headers: aoife), "messages")
            #expect(seen.first { $0["id"] == .string(meeting) }?["meetingAnswer"] == "accepted", "\(seen)")
            #expect(try await answer(meeting, "accepted", brian).json?["meetingAnsweredAt"] == accepted.json?["meetingAnsweredAt"])
            #expect(try await answer(meeting, "declined", brian).status == 409)

            // The proposer, with no socket open, is pushed the answer, not the place.
            let pushes = try await database.sentRequests("notifications.push.send.v1").map { $0["content"]?["alert"]?["body"] }
            #expect(pushes.filter { $0 == "Meeting confirmed" }.count == 1, "\(pushes)")
        }
    }
    @Test func aLiveLocationIsShownToTheOtherSideForUpToAnHourThenLeavesTheDatabase() async throws {
        let clock = MovableClock(stopped: true)
        let key = ["MARKETPLACE_CHAT_KEY": Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()]
        try await InProcessStack.with([.marketplaceChat], environment: key, clock: clock.clock) { http in
            let database = try #require(http.databases["marketplace-chat"])
            let parts = try await ServiceDefinition.marketplaceChat.parts(on: database, environment: key, clock: clock.clock)
            let purge = try #require(parts.jobs.first { $0.name.hasSuffix("live-locations.purge") })
            func signIn() async throws -> (dana: [String: String], eoin: [String: String]) {
                (try await http.signedIn(self.dana, as: ChatRouteTests.nebula("dana")), try await http.signedIn(self.eoin, as: ChatRouteTests.nebula("eoin")))
            }
            var (dana, eoin) = try await signIn()
            _ = try await http.get("/v1/conversations", headers: eoin)
            let id = try #require(Traders.string(try await http.post("/v1/conversations", json: #"{"username":"eoin"}"#, headers: dana), "id"))
            let path = "/v1/conversations/\(id)/live-location"
            let share = { @Sendable (json: String, headers: [String: String]) in try await http.send("PUT", path, body: Array(json.utf8), headers: headers) }
            let arch = #"{"latitude":53.3446,"longitude":-6.259}"#

            // Bad input is named; a stranger's answers are a missing conversation's.
            let far = try await share(#"{"point":{"latitude":91,"longitude":0}}"#, dana)
            #expect(far.status == 400 && Traders.errorFields(far) == ["point"], "\(far.text)")
            let long = try await share(#"{"point":\#(arch),"minutes":61}"#, dana)
            #expect(long.status == 400 && Traders.errorFields(long) == ["minutes"], "\(long.text)")
            let mallory = try await http.signedIn(UUID(), as: ChatRouteTests.nebula("mallory"))
            let stranger = try await share(#"{"point":\#(arch)}"#, mallory), nothing = try await http.get("/v1/conversations/\(UUID())/live-location", headers: dana)
            #expect(stranger.status == 404 && stranger.json?["detail"] == nothing.json?["detail"], "\(stranger.text)")

            // Dana shares: an hour from now, hers to her, theirs to Eoin, told live, sealed at rest.
            let started = try await share(#"{"point":\#(arch)}"#, dana)
            let start = try #require(Self.date(started.json?["mine"]?["startedAt"]), "\(started.text)")
            #expect(Self.date(started.json?["mine"]?["expiresAt"]) == start.addingTimeInterval(3_600) && started.json?["theirs"] == nil)
            let seen = try await http.get(path, headers: eoin)
            #expect(seen.json?["theirs"]?["point"]?["latitude"] == .number(53.3446) && seen.json?["mine"] == nil, "\(seen.text)")
            let told = try await ChatRouteTests.sync(parts.handlers.finished(), as: self.eoin, username: "eoin", after: 0, presence: "open")
            let event = told.map { String(decoding: $0.encoded(), as: UTF8.self) } ?? ""
            #expect(event.contains(#""type":"location""#) && event.contains("53.3446"), "\(event)")
            #expect(try await ChatRouteTests.count("SELECT count(*)::int FROM live_locations WHERE position(convert_to('53.34', 'UTF8') in body) > 0", in: database) == 0)

            // Moved 50 minutes on: asking for 30 more minutes stops at the share's hour.
            clock.advance(.seconds(50 * 60))
            (dana, eoin) = try await signIn()
            let moved = try await share(#"{"point":{"latitude":53.3450,"longitude":-6.2601},"minutes":30}"#, dana)
            #expect(Self.date(moved.json?["mine"]?["expiresAt"]) == start.addingTimeInterval(3_600) && moved.json?["mine"]?["point"]?["latitude"] == .number(53.345),
                    "\(moved.text)")

            // Past the hour: served to no one, and deleted by the purge.
            clock.advance(.seconds(11 * 60))
            (dana, eoin) = try await signIn()
            #expect(try await http.get(path, headers: eoin).json?["theirs"] == nil)
            #expect(await purge.round() == 1)
            #expect(try await ChatRouteTests.count("SELECT count(*)::int FROM live_locations", in: database) == 0)

            // A new share runs its own minutes; stopping it ends it for both at once.
            let again = try await share(#"{"point":\#(arch),"minutes":5}"#, dana)
            let restart = try #require(Self.date(again.json?["mine"]?["startedAt"]), "\(again.text)")
            #expect(Self.date(again.json?["mine"]?["expiresAt"]) == restart.addingTimeInterval(300))
            let stopped = try await http.send("DELETE", path, headers: dana)
            #expect(stopped.status == 200 && stopped.json?["mine"] == nil, "\(stopped.text)")
            #expect(try await http.get(path, headers: eoin).json?["theirs"] == nil)
            #expect(try await ChatRouteTests.count("SELECT count(*)::int FROM live_locations", in: database) == 0)

            // An erased account's share goes with it.
            #expect(try await share(#"{"point":\#(arch)}"#, eoin).status == 200)
            _ = try await Traders.erase(self.eoin, in: database)
            #expect(try await ChatRouteTests.count("SELECT count(*)::int FROM live_locations", in: database) == 0)
        }
    }
}
}
