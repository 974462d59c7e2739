import Envelope
import Foundation
import HouseholdService
import PostgresNIO
import ServiceKit
import Testing
import TestSupport

extension HouseholdStackTests {
/// Grocery lists through the gateway's routing, in process, as three roommates' apps use them.
@Suite(.timeLimit(.minutes(2))) struct GroceryRouteTests {
    let roommates = Roommates()

    static func items(_ value: JSONValue?) -> [JSONValue] {
        if case .array(let items)? = value?["items"] { items } else { [] }
    }

    static func names(_ value: JSONValue?) -> [String] {
        items(value).compactMap { if case .string(let name)? = $0["name"] { name } else { nil } }
    }

    static func errorFields(_ reply: HTTPTestClient.Reply) -> Set<String> {
        guard case .array(let errors)? = reply.json?["fields"] else { return [] }
        return Set(errors.compactMap { error -> String? in if case .string(let field)? = error["field"] { field } else { nil } })
    }

    @Test func threeRoommatesShopFromOneList() async throws {
        try await InProcessStack.with([.household]) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            func add(_ list: String, _ json: String, _ headers: [String: String]) async throws -> String {
                let added = try await http.post("\(base)/groceries/\(list)/items", json: json, headers: headers)
                #expect(added.status == 201, "\(added.text)")
                return try #require(HouseholdRouteTests.string(added, "id"))
            }
            let milk = try await add("personal", #"{"name":"Oat milk","quantity":2,"unit":"l","category":"Dairy"}"#, flat.ana)
            let cake = try await add("personal", #"{"name":"Birthday cake for Ben","private":true}"#, flat.ana)
            _ = try await add("personal", #"{"name":"Coffee"}"#, flat.ben)
            let roll = try await add("communal", #"{"name":"Toilet roll","quantity":9}"#, flat.cara)

            // The shopping list: the communal items, then each member's in the order they joined; no private item, no empty group.
            let shopping = try await http.get("\(base)/shopping-list", headers: flat.ben)
            guard case .array(let groups)? = shopping.json?["groups"] else { Issue.record("\(shopping.text)"); return }
            #expect(groups.map(\.["memberId"]) == [nil, .string(flat.members["ana"]!), .string(flat.members["ben"]!)], "\(shopping.text)")
            #expect(groups.map(Self.names) == [["Toilet roll"], ["Oat milk"], ["Coffee"]], "\(shopping.text)")
            // Ana sees her own cake; Ben gets the answer a made-up id gets, for the item and for Ana's list.
            #expect(Self.names(try await http.get("\(base)/groceries/personal", headers: flat.ana).json) == ["Oat milk", "Birthday cake for Ben"])
            let hidden = try await http.get("\(base)/grocery-items/\(cake)", headers: flat.ben)
            let madeUp = try await http.get("\(base)/grocery-items/\(UUID().uuidString.lowercased())", headers: flat.ben)
            #expect(hidden.status == 404 && hidden.json?["detail"] == madeUp.json?["detail"] && hidden.json?["fields"] == madeUp.json?["fields"], "\(hidden.text)")
            let anasList = try #require(HouseholdRouteTests.string(try await http.get("\(base)/grocery-items/\(milk)", headers: flat.ana), "listId"))
            #expect(try await http.get("\(base)/grocery-lists/\(anasList)", headers: flat.ben).status == 404)

            // Cara buys Ana's milk; Ben may not rename it; the purchase shows in the month's history.
            let bought = try await Roommates.patch(http, "\(base)/grocery-items/\(milk)", #"{"version":1,"bought":true,"price":{"minorUnits":249,"currency":"EUR"}}"#, flat.cara)
            #expect(bought.status == 200 && bought.json?["bought"]?["memberId"] == .string(flat.members["cara"]!), "\(bought.text)")
            #expect(bought.json?["bought"]?["price"]?["minorUnits"] == 249 && bought.json?["version"] == 2)
            #expect(try await Roommates.patch(http, "\(base)/grocery-items/\(milk)", #"{"version":2,"name":"Milk"}"#, flat.ben).status == 403)
            // Nor may he take Cara's purchase over or undo it.
            #expect(try await Roommates.patch(http, "\(base)/grocery-items/\(milk)", #"{"version":2,"bought":false}"#, flat.ben).status == 403)
            #expect(try await Roommates.patch(http, "\(base)/grocery-items/\(milk)", #"{"version":2,"bought":true}"#, flat.ben).status == 403)
            let month = String(ISO8601DateFormatter().string(from: Date()).prefix(7))
            #expect(Self.names(try await http.get("\(base)/purchases?month=\(month)", headers: flat.ben).json) == ["Oat milk"])
            #expect(Self.names(try await http.get("\(base)/purchases?memberId=\(flat.members["ben"]!)", headers: flat.ben).json) == [])

            // Ana and Ben change the toilet roll at once from version 1: one wins, the other is 409 with the item as it is.
            async let first = Roommates.patch(http, "\(base)/grocery-items/\(roll)", #"{"version":1,"quantity":18}"#, flat.ana)
            async let second = Roommates.patch(http, "\(base)/grocery-items/\(roll)", #"{"version":1,"note":"the recycled kind"}"#, flat.ben)
            let (one, other) = try await (first, second)
            let (won, lost) = one.status == 200 ? (one, other) : (other, one)
            #expect(won.status == 200 && lost.status == 409, "\(one.text) / \(other.text)")
            #expect(lost.json?["current"]?["version"] == 2 && lost.json?["current"] == won.json, "\(lost.text)")

            // Ana moves eggs from her list to the communal one; the others hear of it, as of Cara's roll.
            let eggs = try await add("personal", #"{"name":"Eggs","quantity":12}"#, flat.ana)
            let moved = try await Roommates.patch(http, "\(base)/grocery-items/\(eggs)", #"{"version":1,"list":"communal"}"#, flat.ana)
            #expect(moved.status == 200 && moved.json?["list"] == "communal" && moved.json?["wantedBy"] == nil, "\(moved.text)")
            let database = try #require(http.databases["household"])
            let pushes = try await database.transaction { connection in
                try await connection.query("SELECT data FROM outbox WHERE type = 'notifications.push.send.v1' ORDER BY created_at", logger: database.logger)
                    .decode(Data.self).reduce(into: [JSONValue]()) { $0.append(try JSONValue.parse(Array($1))) }
            }
            #expect(pushes.map { $0["content"]?["eventType"] } == [.string("household.grocery.communal-added"), .string("household.grocery.communal-added")])
            #expect(pushes.first?["recipients"] == .array([.string(roommates.ana.uuidString.lowercased()), .string(roommates.ben.uuidString.lowercased())]))
            #expect(pushes.last?["content"]?["data"]?["id"] == .string(eggs) && pushes.last?["content"]?["category"] == "groceries")

            // Finishing the communal list moves it to the history; a new one is current; bought again, the roll is on it.
            let communal = try #require(HouseholdRouteTests.string(try await http.get("\(base)/groceries/communal", headers: flat.ben), "id"))
            let finished = try await http.post("\(base)/grocery-lists/\(communal)/finish", json: "{}", headers: flat.ben)
            #expect(finished.status == 200 && finished.json?["finishedBy"] == .string(flat.members["ben"]!), "\(finished.text)")
            let fresh = try await http.get("\(base)/groceries/communal", headers: flat.cara)
            #expect(HouseholdRouteTests.string(fresh, "id") != communal && Self.items(fresh.json).isEmpty, "\(fresh.text)")
            let history = try await http.get("\(base)/groceries/communal/history?limit=1", headers: flat.cara)
            guard case .array(let lists)? = history.json?["lists"] else { Issue.record("\(history.text)"); return }
            #expect(lists.count == 1 && Self.names(lists.first) == ["Toilet roll", "Eggs"] && history.json?["nextAfter"] != nil, "\(history.text)")
            let again = try await http.post("\(base)/grocery-items/\(roll)/again", json: #"{"list":"communal"}"#, headers: flat.cara)
            #expect(again.status == 201 && again.json?["listId"] == fresh.json?["id"] && again.json?["bought"] == nil, "\(again.text)")

            // A stranger is answered as for a household that does not exist.
            let stranger = try await http.signedIn(UUID(), as: .roommate)
            #expect(try await http.get("\(base)/shopping-list", headers: stranger).status == 404)
            #expect(try await http.get("\(base)/grocery-items/\(roll)", headers: stranger).status == 404)
        }
    }

    @Test func goingShoppingTellsTheOthersAtMostSixTimesAnHour() async throws {
        try await InProcessStack.with([.household]) { http in
            let flat = try await roommates.flat(http)
            for trip in 1...6 {
                let told = try await http.post("/v1/households/\(flat.id)/shopping-trips", json: #"{"note":"Tesco, back by 7"}"#, headers: flat.ben)
                #expect(told.status == 202 && told.json?["notified"] == 2, "trip \(trip): \(told.text)")
            }
            let seventh = try await http.post("/v1/households/\(flat.id)/shopping-trips", json: "{}", headers: flat.ben)
            #expect(seventh.status == 429 && seventh.header("retry-after") != nil, "\(seventh.text)")
            #expect(try await http.post("/v1/households/\(flat.id)/shopping-trips", json: "{}", headers: flat.ana).status == 202, "the limit is Ben's alone")
        }
    }

    @Test func badItemsAreRefusedFieldByField() async throws {
        try await InProcessStack.with([.household]) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            let bad = try await http.post("\(base)/groceries/communal/items", json: #"{"name":"  ","quantity":0,"private":true}"#, headers: flat.ana)
            let fields = Self.errorFields(bad)
            #expect(bad.status == 400 && fields.isSuperset(of: ["quantity"]), "\(bad.text)")
            let spaces = try await http.post("\(base)/groceries/communal/items", json: #"{"name":"  ","private":true}"#, headers: flat.ana)
            #expect(spaces.status == 400 && Self.errorFields(spaces) == ["name", "private"], "\(spaces.text)")
            let item = try await http.post("\(base)/groceries/personal/items", json: #"{"name":"Rice"}"#, headers: flat.ana)
            let id = try #require(HouseholdRouteTests.string(item, "id"))
            let priceAlone = try await Roommates.patch(http, "\(base)/grocery-items/\(id)", #"{"version":1,"price":{"minorUnits":100,"currency":"EUR"}}"#, flat.ana)
            #expect(priceAlone.status == 400 && Self.errorFields(priceAlone) == ["price"], "\(priceAlone.text)")

            // Deleting the current list takes its items; the next read starts an empty one.
            let list = try #require(HouseholdRouteTests.string(item, "listId"))
            #expect(try await http.send("DELETE", "\(base)/grocery-lists/\(list)", headers: flat.ana).status == 200)
            #expect(try await http.get("\(base)/grocery-items/\(id)", headers: flat.ana).status == 404)
            let next = try await http.get("\(base)/groceries/personal", headers: flat.ana)
            #expect(next.status == 200 && HouseholdRouteTests.string(next, "id") != list && Self.items(next.json).isEmpty)
        }
    }
}
}
