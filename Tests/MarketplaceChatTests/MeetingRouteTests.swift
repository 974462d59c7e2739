import Envelope
import Foundation
import Testing
import TestSupport

extension MarketplaceStackTests {
/// Meeting in person (item 6): a place proposed in chat and confirmed by the other side.
@Suite(.timeLimit(.minutes(3))) struct MeetingRouteTests {
    let traders = Traders()

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
}
}
