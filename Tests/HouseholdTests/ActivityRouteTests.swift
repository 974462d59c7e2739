import Envelope
import Foundation
import Testing
import TestSupport

extension HouseholdStackTests {
/// The household's activity feed through the gateway's routing, in process.
@Suite(.timeLimit(.minutes(2))) struct ActivityRouteTests {
    let roommates = Roommates()

    @Test func theFeedListsWhatTheHouseholdWasToldNewestFirst() async throws {
        try await InProcessStack.with([.household]) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            _ = try await http.post("\(base)/groceries/communal/items", json: #"{"name":"Toilet roll"}"#, headers: flat.cara)
            _ = try await http.post("\(base)/bills", json: #"{"title":"Electricity","amount":{"minorUnits":9000,"currency":"EUR"}}"#, headers: flat.ben)
            // A settlement and a reminder are between two members: not in the feed.
            _ = try await http.post("\(base)/settlements", json: #"{"from":"\#(flat.members["ana"]!)","amount":{"minorUnits":3000,"currency":"EUR"}}"#, headers: flat.ben)
            _ = try await http.post("\(base)/debt-reminders", json: "{}", headers: flat.ben)
            _ = try await http.post("\(base)/posts", json: #"{"title":"Party on Saturday"}"#, headers: flat.ana)

            let feed = try await http.get("\(base)/activity", headers: flat.cara)
            guard case .array(let entries)? = feed.json?["activity"] else { Issue.record("\(feed.text)"); return }
            #expect(entries.map(\.["category"]) == ["board", "bills", "groceries"], "\(feed.text)")
            #expect(entries.map(\.["memberId"]) == [.string(flat.members["ana"]!), .string(flat.members["ben"]!), .string(flat.members["cara"]!)])
            let bills = try await http.get("\(base)/activity?category=bills&limit=1", headers: flat.ana)
            guard case .array(let only)? = bills.json?["activity"] else { Issue.record("\(bills.text)"); return }
            #expect(only.count == 1 && only.first?["eventType"] == "household.bill.created" && bills.json?["nextAfter"] != nil, "\(bills.text)")
            #expect(try await http.get("\(base)/activity", headers: try await http.signedIn(UUID(), as: .roommate)).status == 404)
        }
    }
}
}
