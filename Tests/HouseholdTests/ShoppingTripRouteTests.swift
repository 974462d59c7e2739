import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
@testable import HouseholdService
import PostgresSupport
import ServiceKit
import Testing
import TestSupport

extension HouseholdStackTests {
/// Finished shopping trips (the past aggregate lists) and clearing the shopping list, through the
/// gateway's routing, in process, as three roommates' apps use them.
@Suite(.timeLimit(.minutes(2))) struct ShoppingTripRouteTests {
    let roommates = Roommates()

    static func trips(_ reply: HTTPTestClient.Reply) -> [JSONValue] {
        if case .array(let trips)? = reply.json?["trips"] { trips } else { [] }
    }

    static func id(_ value: JSONValue?) -> String? {
        if case .string(let id)? = value?["id"] { id } else { nil }
    }

    static func nextAfter(_ reply: HTTPTestClient.Reply) -> Int64? {
        if case .number(let next)? = reply.json?["nextAfter"] { Int64(next) } else { nil }
    }

    /// The names on the shopping list, group after group.
    static func shopping(_ http: InProcessHTTP, _ base: String, _ headers: [String: String]) async throws -> [String] {
        let list = try await http.get("\(base)/shopping-list", headers: headers)
        guard case .array(let groups)? = list.json?["groups"] else { Issue.record("\(list.text)"); return [] }
        return groups.flatMap(GroceryRouteTests.names)
    }

    @Test func aFinishedTripKeepsTheShoppingListAsItWasNewestFirst() async throws {
        try await InProcessStack.with([.household]) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            func add(_ list: String, _ json: String, _ headers: [String: String]) async throws -> String {
                let added = try await http.post("\(base)/groceries/\(list)/items", json: json, headers: headers)
                #expect(added.status == 201, "\(added.text)")
                return try #require(HouseholdRouteTests.string(added, "id"))
            }
            let milk = try await add("personal", #"{"name":"Oat milk","quantity":2,"unit":"l"}"#, flat.ana)
            _ = try await add("personal", #"{"name":"Birthday cake for Ben","private":true}"#, flat.ana)
            let coffee = try await add("personal", #"{"name":"Coffee"}"#, flat.ben)
            let roll = try await add("communal", #"{"name":"Toilet roll","quantity":9}"#, flat.cara)

            // Nothing bought yet: no trip to finish.
            let early = try await http.post("\(base)/shopping-trips/finish", json: "{}", headers: flat.cara)
            #expect(early.status == 409, "\(early.text)")

            // Cara buys the milk and the roll, and finishes her trip: the list as it was, in its order, without the private cake.
            let price = #""price":{"minorUnits":249,"currency":"EUR"}"#
            #expect(try await Roommates.patch(http, "\(base)/grocery-items/\(milk)", #"{"version":1,"bought":true,\#(price)}"#, flat.cara).status == 200)
            #expect(try await Roommates.patch(http, "\(base)/grocery-items/\(roll)", #"{"version":1,"bought":true}"#, flat.cara).status == 200)
            let keyed = flat.cara.merging(["Idempotency-Key": "trip-1"]) { $1 }
            let finished = try await http.post("\(base)/shopping-trips/finish", json: "{}", headers: keyed)
            #expect(finished.status == 201 && finished.json?["finishedBy"] == .string(flat.members["cara"]!), "\(finished.text)")
            #expect(GroceryRouteTests.names(finished.json) == ["Toilet roll", "Oat milk", "Coffee"], "\(finished.text)")
            let items = GroceryRouteTests.items(finished.json)
            #expect(items.map(\.["wantedBy"]) == [nil, .string(flat.members["ana"]!), .string(flat.members["ben"]!)])
            #expect(items.map { $0["bought"]?["memberId"] } == [.string(flat.members["cara"]!), .string(flat.members["cara"]!), nil])
            let kept = items.dropFirst().first
            #expect(kept?["quantity"] == 2 && kept?["unit"] == "l" && kept?["bought"]?["price"]?["minorUnits"] == 249, "\(finished.text)")
            let first = try #require(Self.id(finished.json))
            // A retry of the same request is the same trip, not a second one.
            let retried = try await http.post("\(base)/shopping-trips/finish", json: "{}", headers: keyed)
            #expect(retried.status == 201 && Self.id(retried.json) == first, "\(retried.text)")

            // What was bought left the shopping list; it stays on Ana's own list. A second finish finds nothing bought.
            #expect(try await Self.shopping(http, base, flat.ben) == ["Coffee"])
            #expect(GroceryRouteTests.names(try await http.get("\(base)/groceries/personal", headers: flat.ana).json) == ["Oat milk", "Birthday cake for Ben"])
            #expect(try await http.post("\(base)/shopping-trips/finish", json: "{}", headers: flat.cara).status == 409)

            // Ben buys his coffee and finishes a second trip; the trips are listed the last finished first.
            #expect(try await Roommates.patch(http, "\(base)/grocery-items/\(coffee)", #"{"version":1,"bought":true}"#, flat.ben).status == 200)
            let second = try #require(Self.id(try await http.post("\(base)/shopping-trips/finish", json: "{}", headers: flat.ben).json))
            let page = try await http.get("\(base)/shopping-trips?limit=1", headers: flat.ana)
            #expect(Self.trips(page).map { Self.id($0) } == [second], "\(page.text)")
            #expect(Self.trips(page).first?["itemCount"] == 1 && Self.trips(page).first?["boughtCount"] == 1, "\(page.text)")
            let next = try #require(Self.nextAfter(page), "\(page.text)")
            // A trip finished meanwhile does not move the pages already given out.
            let bread = try await add("communal", #"{"name":"Bread"}"#, flat.ana)
            #expect(try await Roommates.patch(http, "\(base)/grocery-items/\(bread)", #"{"version":1,"bought":true}"#, flat.ana).status == 200)
            let third = try #require(Self.id(try await http.post("\(base)/shopping-trips/finish", json: "{}", headers: flat.ana).json))
            let older = try await http.get("\(base)/shopping-trips?limit=1&after=\(next)", headers: flat.ana)
            #expect(Self.trips(older).map { Self.id($0) } == [first], "\(older.text)")
            #expect(Self.trips(older).first?["itemCount"] == 3 && Self.trips(older).first?["boughtCount"] == 2, "\(older.text)")
            let all = try await http.get("\(base)/shopping-trips", headers: flat.ben)
            #expect(Self.trips(all).map { Self.id($0) } == [third, second, first] && Self.nextAfter(all) == nil, "\(all.text)")

            // Any member reads a trip whole; it stays as it was when the milk changes.
            #expect(try await Roommates.patch(http, "\(base)/grocery-items/\(milk)", #"{"version":2,"name":"Soy milk"}"#, flat.ana).status == 200)
            let read = try await http.get("\(base)/shopping-trips/\(first)", headers: flat.ben)
            #expect(read.status == 200 && GroceryRouteTests.names(read.json) == ["Toilet roll", "Oat milk", "Coffee"], "\(read.text)")
            #expect(GroceryRouteTests.items(read.json).first?["bought"] != nil && GroceryRouteTests.items(read.json).last?["bought"] == nil)

            // A stranger is answered alike for a trip that exists and one that does not; so is a member for a made-up id.
            let stranger = try await http.signedIn(UUID(), as: .roommate)
            let madeUp = UUID().uuidString.lowercased()
            let theirs = try await http.get("\(base)/shopping-trips/\(first)", headers: stranger)
            let none = try await http.get("\(base)/shopping-trips/\(madeUp)", headers: stranger)
            #expect(theirs.status == 404 && theirs.json?["detail"] == none.json?["detail"] && theirs.json?["fields"] == none.json?["fields"], "\(theirs.text)")
            #expect(try await http.get("\(base)/shopping-trips", headers: stranger).status == 404)
            #expect(try await http.post("\(base)/shopping-trips/finish", json: "{}", headers: stranger).status == 404)
            #expect(try await http.get("\(base)/shopping-trips/\(madeUp)", headers: flat.ana).status == 404)
            let bad = try await http.get("\(base)/shopping-trips?limit=0", headers: flat.ana)
            #expect(bad.status == 400 && GroceryRouteTests.errorFields(bad) == ["limit"], "\(bad.text)")
        }
    }

    @Test func aMemberClearsTheShoppingListAndAChangedItemComesBack() async throws {
        try await InProcessStack.with([.household]) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            let milk = try #require(HouseholdRouteTests.string(
                try await http.post("\(base)/groceries/personal/items", json: #"{"name":"Oat milk"}"#, headers: flat.ana), "id"))
            _ = try await http.post("\(base)/groceries/personal/items", json: #"{"name":"Birthday cake for Ben","private":true}"#, headers: flat.ana)
            _ = try await http.post("\(base)/groceries/communal/items", json: #"{"name":"Toilet roll"}"#, headers: flat.cara)
            #expect(try await Self.shopping(http, base, flat.ben) == ["Toilet roll", "Oat milk"])

            // Ben clears it: both leave the shopping list (the private cake was never on it), and stay on their own lists.
            let cleared = try await http.send("DELETE", "\(base)/shopping-list", headers: flat.ben)
            #expect(cleared.status == 200 && cleared.json?["cleared"] == 2, "\(cleared.text)")
            #expect(try await Self.shopping(http, base, flat.cara) == [])
            #expect(GroceryRouteTests.names(try await http.get("\(base)/groceries/personal", headers: flat.ana).json) == ["Oat milk", "Birthday cake for Ben"])
            #expect(GroceryRouteTests.names(try await http.get("\(base)/groceries/communal", headers: flat.ana).json) == ["Toilet roll"])
            let again = try await http.send("DELETE", "\(base)/shopping-list", headers: flat.ben)
            #expect(again.status == 200 && again.json?["cleared"] == 0, "\(again.text)")

            // Ana wants more milk: the changed item is on the shopping list again; so is whatever is added.
            #expect(try await Roommates.patch(http, "\(base)/grocery-items/\(milk)", #"{"version":1,"quantity":2}"#, flat.ana).status == 200)
            _ = try await http.post("\(base)/groceries/communal/items", json: #"{"name":"Bread"}"#, headers: flat.cara)
            #expect(try await Self.shopping(http, base, flat.ben) == ["Bread", "Oat milk"])

            #expect(try await http.send("DELETE", "\(base)/shopping-list", headers: try await http.signedIn(UUID(), as: .roommate)).status == 404)
        }
    }

    /// A deleted account's wishes leave the trips as its own lists go; what it bought stays, by its member id.
    @Test func anErasedAccountsWishesLeaveTheTrips() async throws {
        try await InProcessStack.with([.household]) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            let milk = try #require(HouseholdRouteTests.string(
                try await http.post("\(base)/groceries/personal/items", json: #"{"name":"Oat milk"}"#, headers: flat.ana), "id"))
            let roll = try #require(HouseholdRouteTests.string(
                try await http.post("\(base)/groceries/communal/items", json: #"{"name":"Toilet roll"}"#, headers: flat.cara), "id"))
            #expect(try await Roommates.patch(http, "\(base)/grocery-items/\(milk)", #"{"version":1,"bought":true}"#, flat.ben).status == 200)
            #expect(try await Roommates.patch(http, "\(base)/grocery-items/\(roll)", #"{"version":1,"bought":true}"#, flat.ana).status == 200)
            let trip = try #require(Self.id(try await http.post("\(base)/shopping-trips/finish", json: "{}", headers: flat.ben).json))

            // Auth's outbox asks household to erase Ana, as it does when her account is deleted.
            let database = try #require(http.databases["household"])
            let erasure = AccountErasureHandler(database: database, households: HouseholdStore(database: database))
            let context = RequestContext(attributes: .init(source: "urn:melon:auth", type: Household.Account.Erase.type), logger: .init(label: "erase"), bus: nil)
            _ = try await erasure.erase(AccountErasure(account: roommates.ana.uuidString.lowercased(), email: "ana@tcd.ie"), context)

            let read = try await http.get("\(base)/shopping-trips/\(trip)", headers: flat.ben)
            #expect(read.status == 200 && GroceryRouteTests.names(read.json) == ["Toilet roll"], "\(read.text)")
            #expect(GroceryRouteTests.items(read.json).first?["bought"]?["memberId"] == .string(flat.members["ana"]!), "her purchase stays, a former member's")
            #expect(Self.trips(try await http.get("\(base)/shopping-trips", headers: flat.cara)).first?["itemCount"] == 1)
        }
    }
}
}
