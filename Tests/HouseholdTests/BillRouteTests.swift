import Envelope
import Foundation
import HouseholdService
import PostgresSupport
import ServiceKit
import Testing
import TestSupport

extension HouseholdStackTests {
/// Bills, balances and settling up through the gateway's routing, in process, as three roommates'
/// apps use them.
@Suite(.timeLimit(.minutes(2))) struct BillRouteTests {
    let roommates = Roommates()

    static func shares(_ reply: HTTPTestClient.Reply) -> [JSONValue?] {
        if case .array(let shares)? = reply.json?["shares"] { shares.map { $0["amount"]?["minorUnits"] } } else { [] }
    }

    /// The transfers of the first currency, as (from, to, minor units).
    static func transfers(_ reply: HTTPTestClient.Reply) -> [[JSONValue?]] {
        guard case .array(let currencies)? = reply.json?["currencies"], case .array(let transfers)? = currencies.first?["transfers"] else { return [] }
        return transfers.map { [$0["from"], $0["to"], $0["amount"]?["minorUnits"]] }
    }

    @Test func threeRoommatesSplitSimplifyAndSettleUp() async throws {
        try await InProcessStack.with([.household]) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            let (ana, ben, cara) = (JSONValue.string(flat.members["ana"]!), JSONValue.string(flat.members["ben"]!), JSONValue.string(flat.members["cara"]!))

            // Ten euro three ways: the remainder's cent goes to the first named (Ana, who joined first); a retry is the same bill.
            let electricity = #"{"title":"Electricity","amount":{"minorUnits":1000,"currency":"EUR"}}"#
            let keyed = flat.ana.merging(["Idempotency-Key": "bill-1"]) { $1 }
            let bill = try await http.post("\(base)/bills", json: electricity, headers: keyed)
            #expect(bill.status == 201 && Self.shares(bill) == [1000 / 3 + 1, 333, 333].map { JSONValue.number(Double($0)) }, "\(bill.text)")
            #expect(HouseholdRouteTests.string(try await http.post("\(base)/bills", json: electricity, headers: keyed), "id") == HouseholdRouteTests.string(bill, "id"))
            // Ben's groceries by shares: Cara two, Ben one.
            let groceries = #"{"title":"Groceries","amount":{"minorUnits":6000,"currency":"EUR"},"split":"shares","parts":[{"memberId":"\#(flat.members["ben"]!)","value":1},{"memberId":"\#(flat.members["cara"]!)","value":2}]}"#
            let shared = try await http.post("\(base)/bills", json: groceries, headers: flat.ben)
            #expect(shared.status == 201 && Self.shares(shared) == [2000, 4000], "\(shared.text)")
            let badPercent = try await http.post(
                "\(base)/bills", json: #"{"title":"Wifi","amount":{"minorUnits":3000,"currency":"EUR"},"split":"percentage","parts":[{"memberId":"\#(flat.members["ana"]!)","value":5000}]}"#,
                headers: flat.ana)
            #expect(badPercent.status == 400 && GroceryRouteTests.errorFields(badPercent) == ["parts"], "\(badPercent.text)")

            // Simplified: Ana +6.66, Ben +36.67, Cara -43.33, settled by two transfers, both from Cara.
            let simplified = try await http.get("\(base)/balances", headers: flat.cara)
            #expect(Self.transfers(simplified) == [[cara, ben, 3667], [cara, ana, 666]], "\(simplified.text)")
            // Pair by pair once the owner turns simplifying off.
            _ = try await Roommates.patch(http, base, #"{"version":1,"simplifyDebts":false}"#, flat.ana)
            let pairwise = try await http.get("\(base)/balances", headers: flat.cara)
            #expect(Self.transfers(pairwise).count == 3 && Self.transfers(pairwise).first == [cara, ben, 4000], "\(pairwise.text)")

            // Cara pays Ben; her phone retries: one settlement. It counts once Ben confirms.
            let settle = #"{"to":"\#(flat.members["ben"]!)","amount":{"minorUnits":4000,"currency":"EUR"},"reference":"Revolut"}"#
            let settleKey = flat.cara.merging(["Idempotency-Key": "settle-1"]) { $1 }
            let paid = try await http.post("\(base)/settlements", json: settle, headers: settleKey)
            let again = try await http.post("\(base)/settlements", json: settle, headers: settleKey)
            #expect(paid.status == 201 && paid.json?["confirmedAt"] == nil && again.json?["id"] == paid.json?["id"], "\(paid.text)")
            guard case .array(let recorded)? = try await http.get("\(base)/settlements", headers: flat.ana).json?["settlements"] else { Issue.record("no list"); return }
            #expect(recorded.count == 1)
            #expect(Self.transfers(try await http.get("\(base)/balances", headers: flat.cara)).count == 3, "not yet confirmed")
            let settlement = try #require(HouseholdRouteTests.string(paid, "id"))
            #expect(try await http.post("\(base)/settlements/\(settlement)/confirm", json: "{}", headers: flat.cara).status == 403, "only Ben confirms")
            let confirmed = try await http.post("\(base)/settlements/\(settlement)/confirm", json: "{}", headers: flat.ben)
            #expect(confirmed.status == 200 && confirmed.json?["confirmedAt"] != nil, "\(confirmed.text)")
            // Cara may not record Ben paying Ana; Ana records Cara's 3.33 to her, which counts at once.
            let others = #"{"from":"\#(flat.members["ben"]!)","to":"\#(flat.members["ana"]!)","amount":{"minorUnits":333,"currency":"EUR"}}"#
            #expect(try await http.post("\(base)/settlements", json: others, headers: flat.cara).status == 403)
            let received = try await http.post("\(base)/settlements", json: #"{"from":"\#(flat.members["cara"]!)","amount":{"minorUnits":333,"currency":"EUR"}}"#, headers: flat.ana)
            #expect(received.status == 201 && received.json?["confirmedAt"] != nil, "\(received.text)")
            #expect(Self.transfers(try await http.get("\(base)/balances", headers: flat.ana)) == [[ben, ana, 333]])

            // A stale edit is 409 with the bill as it is; Ben's change and his delete are in the history; a restore undoes it.
            let billID = try #require(HouseholdRouteTests.string(bill, "id"))
            let changed = try await Roommates.patch(http, "\(base)/bills/\(billID)", #"{"version":1,"amount":{"minorUnits":1200,"currency":"EUR"}}"#, flat.ben)
            #expect(changed.status == 200 && Self.shares(changed) == [400, 400, 400], "\(changed.text)")
            let stale = try await Roommates.patch(http, "\(base)/bills/\(billID)", #"{"version":1,"title":"Power"}"#, flat.cara)
            #expect(stale.status == 409 && stale.json?["current"]?["version"] == 2, "\(stale.text)")
            #expect(try await http.send("DELETE", "\(base)/bills/\(billID)", headers: flat.ben).json?["deletedAt"] != nil)
            #expect(Self.transfers(try await http.get("\(base)/balances", headers: flat.ana)) == [[ana, cara, 333]], "the bill counts no more: Cara's 3.33 to Ana is Ana's debt now")
            let restored = try await http.post("\(base)/bills/\(billID)/restore", json: "{}", headers: flat.ana)
            #expect(restored.status == 200 && restored.json?["deletedAt"] == nil, "\(restored.text)")
            let history = try await http.get("\(base)/bills/\(billID)", headers: flat.cara)
            guard case .array(let changes)? = history.json?["history"] else { Issue.record("\(history.text)"); return }
            #expect(changes.map { [$0["action"], $0["memberId"]] } == [["created", ana], ["updated", ben], ["deleted", ben], ["restored", ana]])
            #expect(changes[1]["fields"] == ["amount", "parts"], "who changed what: \(history.text)")
            #expect(Self.transfers(try await http.get("\(base)/balances", headers: flat.ana)) == [[ben, ana, 400], [cara, ana, 67]], "4.00 each, less the 3.33 Cara paid")

            // A stranger gets what a made-up household gets.
            let stranger = try await http.signedIn(UUID(), as: .roommate)
            #expect(try await http.get("\(base)/balances", headers: stranger).status == 404)
            #expect(try await http.get("\(base)/bills/\(billID)", headers: stranger).status == 404)
        }
    }

    /// Someone who leaves owing money stays in the balances until it is settled.
    @Test func aMemberWhoLeavesOwingStaysInTheBalancesUntilSettled() async throws {
        try await InProcessStack.with([.household]) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            _ = try await http.post("\(base)/bills", json: #"{"title":"Rent","amount":{"minorUnits":90000,"currency":"EUR"}}"#, headers: flat.ana)
            #expect(try await http.post("\(base)/leave", json: "{}", headers: flat.ben).status == 200)
            let ben = JSONValue.string(flat.members["ben"]!), ana = JSONValue.string(flat.members["ana"]!)
            #expect(Self.transfers(try await http.get("\(base)/balances", headers: flat.cara)).contains([ben, ana, 30000]))
            #expect(try await http.get("\(base)/balances", headers: flat.ben).status == 404, "he no longer reaches it")
            let received = try await http.post("\(base)/settlements", json: #"{"from":"\#(flat.members["ben"]!)","amount":{"minorUnits":30000,"currency":"EUR"}}"#, headers: flat.ana)
            #expect(received.status == 201, "\(received.text)")
            #expect(!Self.transfers(try await http.get("\(base)/balances", headers: flat.cara)).contains { $0.first == ben })
        }
    }

    /// A debtor is reminded at most once a day on demand.
    @Test func debtRemindersAreAtMostOnceADay() async throws {
        let clock = MovableClock(stopped: true)
        try await InProcessStack.with([.household], clock: clock.clock) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            _ = try await http.post("\(base)/bills", json: #"{"title":"Rent","amount":{"minorUnits":90000,"currency":"EUR"}}"#, headers: flat.ana)
            let remind = #"{"memberId":"\#(flat.members["ben"]!)"}"#
            let first = try await http.post("\(base)/debt-reminders", json: remind, headers: flat.ana)
            #expect(first.status == 202 && first.json?["reminded"] == 1, "\(first.text)")
            let second = try await http.post("\(base)/debt-reminders", json: remind, headers: flat.ana)
            #expect(second.status == 429 && second.header("retry-after") != nil, "\(second.text)")
            let all = try await http.post("\(base)/debt-reminders", json: "{}", headers: flat.ana)
            #expect(all.status == 202 && all.json?["reminded"] == 1, "Cara is reminded; Ben was today: \(all.text)")
            let owesNothing = try await http.post("\(base)/debt-reminders", json: #"{"memberId":"\#(flat.members["ana"]!)"}"#, headers: flat.ben)
            #expect(owesNothing.status == 400 && GroceryRouteTests.errorFields(owesNothing) == ["memberId"], "\(owesNothing.text)")
            clock.advance(.seconds(86_400))
            let later = try await http.post("\(base)/debt-reminders", json: remind, headers: try await http.signedIn(roommates.ana, as: .roommate))
            #expect(later.status == 202, "a day later: \(later.text)")
        }
    }

    /// While a debt is open its debtor is reminded weekly, counted from when they were first seen owing.
    @Test func debtorsAreRemindedWeeklyWhileTheyOwe() async throws {
        let clock = MovableClock(stopped: true)
        try await InProcessStack.with([.household], clock: clock.clock) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            _ = try await http.post("\(base)/bills", json: #"{"title":"Rent","amount":{"minorUnits":90000,"currency":"EUR"}}"#, headers: flat.ana)
            let parts = try await ServiceDefinition.household.parts(on: try #require(http.databases["household"]), clock: clock.clock)
            let weekly = try #require(parts.jobs.first { $0.name.hasSuffix("debts.weekly") })
            #expect(await weekly.round() == 0, "first seen owing: the week starts")
            clock.advance(.seconds(3 * 86_400))
            #expect(await weekly.round() == 0)
            clock.advance(.seconds(4 * 86_400))
            #expect(await weekly.round() == 2, "a week on: Ben and Cara")
            #expect(await weekly.round() == 0, "once a week")
            let received = try await http.post(
                "\(base)/settlements", json: #"{"from":"\#(flat.members["ben"]!)","amount":{"minorUnits":30000,"currency":"EUR"}}"#,
                headers: try await http.signedIn(roommates.ana, as: .roommate))
            #expect(received.status == 201)
            clock.advance(.seconds(7 * 86_400))
            #expect(await weekly.round() == 1, "Ben settled: only Cara")
        }
    }

    /// The items Cara bought become one bill she paid: each personal item is its owner's, the
    /// communal one is shared by all three; an item goes on one bill only.
    @Test func aShoppingTripBecomesABillByWhoWantedEachItem() async throws {
        try await InProcessStack.with([.household]) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            var items: [String] = []
            for (list, name, headers, price) in [
                ("personal", "Oat milk", flat.ana, 249), ("personal", "Coffee", flat.ben, 899), ("communal", "Toilet roll", flat.cara, 300),
            ] {
                let added = try await http.post("\(base)/groceries/\(list)/items", json: #"{"name":"\#(name)"}"#, headers: headers)
                let id = try #require(HouseholdRouteTests.string(added, "id"))
                let bought = try await Roommates.patch(
                    http, "\(base)/grocery-items/\(id)", #"{"version":1,"bought":true,"price":{"minorUnits":\#(price),"currency":"EUR"}}"#, flat.cara)
                #expect(bought.status == 200, "\(bought.text)")
                items.append(id)
            }
            let trip = #"{"title":"Tesco, Friday","itemIds":[\#(items.map { "\"\($0)\"" }.joined(separator: ","))]}"#
            let bill = try await http.post("\(base)/bills/from-purchases", json: trip, headers: flat.cara)
            #expect(bill.status == 201 && bill.json?["amount"]?["minorUnits"] == 1448 && bill.json?["fromTrip"] == true, "\(bill.text)")
            guard case .array(let shares)? = bill.json?["shares"] else { Issue.record("\(bill.text)"); return }
            let byMember = Dictionary(uniqueKeysWithValues: shares.compactMap { share -> (String, JSONValue)? in
                if case .string(let member)? = share["memberId"], let amount = share["amount"]?["minorUnits"] { (member, amount) } else { nil }
            })
            #expect(byMember == [flat.members["ana"]!: 349, flat.members["ben"]!: 999, flat.members["cara"]!: 100], "\(bill.text)")
            let twice = try await http.post("\(base)/bills/from-purchases", json: #"{"title":"Again","itemIds":["\#(items[0])"]}"#, headers: flat.cara)
            #expect(twice.status == 400 && twice.text.contains("on a bill already"), "\(twice.text)")
            let notHers = try await http.post("\(base)/bills/from-purchases", json: #"{"title":"Mine","itemIds":["\#(items[1])"]}"#, headers: flat.ben)
            #expect(notHers.status == 400, "Ben did not buy it: \(notHers.text)")
        }
    }

    /// Rent repeats monthly: the job adds the next month's copy once it is due, and only once.
    @Test func rentRepeatsEveryMonth() async throws {
        let clock = MovableClock(stopped: true)
        try await InProcessStack.with([.household], clock: clock.clock) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            let today = CalendarDay.text(clock.now())
            let rent = try await http.post(
                "\(base)/bills", json: #"{"title":"Rent","amount":{"minorUnits":90000,"currency":"EUR"},"date":"\#(today)","repeats":"monthly"}"#,
                headers: flat.ana)
            #expect(rent.status == 201 && rent.json?["repeats"] == "monthly", "\(rent.text)")
            let old = try await http.post(
                "\(base)/bills", json: #"{"title":"Rent","amount":{"minorUnits":90000,"currency":"EUR"},"date":"2000-01-01","repeats":"monthly"}"#,
                headers: flat.ana)
            #expect(old.status == 400 && GroceryRouteTests.errorFields(old) == ["date"], "a copy for every month since 2000: \(old.text)")
            let parts = try await ServiceDefinition.household.parts(on: try #require(http.databases["household"]), clock: clock.clock)
            let job = try #require(parts.jobs.first { $0.name.hasSuffix("bills.repeat") })
            func bills(_ headers: [String: String]) async throws -> [JSONValue] {
                if case .array(let bills)? = try await http.get("\(base)/bills", headers: headers).json?["bills"] { bills } else { [] }
            }
            #expect(await job.round() == 0)
            #expect(try await bills(flat.ben).count == 1, "not due yet")
            clock.advance(.seconds(32 * 86_400))
            #expect(await job.round() == 1)
            let ben = try await http.signedIn(roommates.ben, as: .roommate)
            #expect(await job.round() == 0, "once")
            let listed = try await bills(ben)
            #expect(listed.count == 2 && listed.first?["date"] == .string(CalendarDay.adding(months: 1, to: today)) && listed.first?["repeats"] == nil, "\(listed)")
        }
    }

    /// Random bills, edits, deletes, restores and settlements through the routes (seeded): the
    /// balances the service keeps as it goes are what the bills and settlements it lists add up to,
    /// they sum to zero in each currency, and the simplified transfers are at most members - 1.
    @Test(arguments: 0..<2) func runningBalancesAreWhatTheBillsAddUpTo(round: Int) async throws {
        let seed = UInt64(round) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(Date().timeIntervalSince1970)
        try await InProcessStack.with([.household]) { http in
            var generator = SplitMix64(seed: seed)
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            let people = [(flat.ana, flat.members["ana"]!), (flat.ben, flat.members["ben"]!), (flat.cara, flat.members["cara"]!)]
            var bills: [(id: String, version: Int)] = []
            for _ in 0..<40 {
                let (headers, member) = people.randomElement(using: &generator)!
                let currency = Bool.random(using: &generator) ? "EUR" : "USD"
                let amount = Int.random(in: 1...100_000, using: &generator)
                switch Int.random(in: 0..<10, using: &generator) {
                case 0..<5, 5 where bills.isEmpty, 6 where bills.isEmpty:
                    let sharers = people.shuffled(using: &generator).prefix(Int.random(in: 1...3, using: &generator)).map(\.1)
                    let parts = sharers.map { #"{"memberId":"\#($0)","value":\#(Int.random(in: 1...3, using: &generator))}"# }.joined(separator: ",")
                    let json = #"{"title":"Bill","amount":{"minorUnits":\#(amount),"currency":"\#(currency)"},"split":"shares","parts":[\#(parts)]}"#
                    let created = try await http.post("\(base)/bills", json: json, headers: headers)
                    #expect(created.status == 201, "seed \(seed): \(created.text)")
                    if let id = HouseholdRouteTests.string(created, "id") { bills.append((id, 1)) }
                case 5:
                    let index = Int.random(in: 0..<bills.count, using: &generator)
                    let json = #"{"version":\#(bills[index].version),"amount":{"minorUnits":\#(amount),"currency":"\#(currency)"}}"#
                    let changed = try await Roommates.patch(http, "\(base)/bills/\(bills[index].id)", json, headers)
                    #expect(changed.status == 200, "seed \(seed): \(changed.text)")
                    bills[index].version += 1
                case 6:
                    let index = Int.random(in: 0..<bills.count, using: &generator)
                    let deleted = try await http.send("DELETE", "\(base)/bills/\(bills[index].id)", headers: headers)
                    if Bool.random(using: &generator) { _ = try await http.post("\(base)/bills/\(bills[index].id)/restore", json: "{}", headers: headers) }
                    bills[index].version = deleted.json?["version"].flatMap { if case .number(let n) = $0 { Int(n) } else { nil } } ?? bills[index].version
                    if case .number(let n)? = try await http.get("\(base)/bills/\(bills[index].id)", headers: headers).json?["version"] { bills[index].version = Int(n) }
                default:
                    let from = people.filter { $0.1 != member }.randomElement(using: &generator)!.1
                    let json = #"{"from":"\#(from)","amount":{"minorUnits":\#(amount / 10 + 1),"currency":"\#(currency)"}}"#
                    #expect(try await http.post("\(base)/settlements", json: json, headers: headers).status == 201, "seed \(seed)")
                }
            }
            // What the listed bills and settlements add up to, worked out here.
            var expected: [String: [String: Int]] = [:]
            func add(_ currency: String, _ member: String, _ amount: Int) { expected[currency, default: [:]][member, default: 0] += amount }
            guard case .array(let listed)? = try await http.get("\(base)/bills?limit=100", headers: flat.ana).json?["bills"],
                  case .array(let settlements)? = try await http.get("\(base)/settlements?limit=100", headers: flat.ana).json?["settlements"]
            else { Issue.record("seed \(seed): no lists"); return }
            func text(_ value: JSONValue?) -> String { if case .string(let text)? = value { text } else { "" } }
            func number(_ value: JSONValue?) -> Int { if case .number(let n)? = value { Int(n) } else { 0 } }
            for bill in listed {
                let currency = text(bill["amount"]?["currency"])
                add(currency, text(bill["paidBy"]), number(bill["amount"]?["minorUnits"]))
                if case .array(let shares)? = bill["shares"] { for share in shares { add(currency, text(share["memberId"]), -number(share["amount"]?["minorUnits"])) } }
            }
            for settlement in settlements where settlement["confirmedAt"] != nil {
                let currency = text(settlement["amount"]?["currency"]), amount = number(settlement["amount"]?["minorUnits"])
                add(currency, text(settlement["from"]), amount)
                add(currency, text(settlement["to"]), -amount)
            }
            var kept: [String: [String: Int]] = [:]
            guard case .array(let currencies)? = try await http.get("\(base)/balances", headers: flat.ben).json?["currencies"] else { Issue.record("seed \(seed)"); return }
            for entry in currencies {
                if case .array(let members)? = entry["members"] {
                    for member in members { kept[text(entry["currency"]), default: [:]][text(member["memberId"])] = number(member["net"]?["minorUnits"]) }
                }
                if case .array(let transfers)? = entry["transfers"] { #expect(transfers.count <= 2, "seed \(seed): \(transfers.count) transfers among 3") }
            }
            #expect(kept == expected.mapValues { $0.filter { $0.value != 0 } }.filter { !$0.value.isEmpty }, "seed \(seed)")
            #expect(kept.values.allSatisfy { $0.values.reduce(0, +) == 0 }, "seed \(seed): the balances sum to zero")
        }
    }
}
}
