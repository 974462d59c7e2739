import Envelope
import Foundation
@testable import HouseholdService
import PostgresNIO
import PostgresSupport
import ServiceKit
import Testing
import TestSupport

extension HouseholdStackTests {
/// Chores through the gateway's routing, in process, over several weeks of the service's clock
/// (moved, never slept): turns rotate at each completion or missed due time, pass over a member
/// away, and add up in the stats.
@Suite(.timeLimit(.minutes(2))) struct ChoreRouteTests {
    let roommates = Roommates()

    @Test func binsRotateOverThreeRoommatesForWeeks() async throws {
        let clock = MovableClock(stopped: true)
        try await InProcessStack.with([.household], clock: clock.clock) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            let (ana, ben, cara) = (flat.members["ana"]!, flat.members["ben"]!, flat.members["cara"]!)
            let parts = try await ServiceDefinition.household.parts(on: try #require(http.databases["household"]), clock: clock.clock)
            let skip = try #require(parts.jobs.first { $0.name.hasSuffix("chores.skip") })
            let calendar = try #require(ChoreSchedule.calendar("Europe/Dublin"))
            // Bins out every Wednesday at 19:00 Dublin time, starting with the next Wednesday, in turn Ben, Cara, Ana.
            var first = calendar.date(bySettingHour: 19, minute: 0, second: 0, of: clock.now())!
            while calendar.component(.weekday, from: first) != 4 || first <= clock.now() { first = calendar.date(byAdding: .day, value: 1, to: first)! }
            let create = """
                {"title":"Bins out","frequency":"weekly","weekdays":[3],"timeZone":"Europe/Dublin","dueAt":"\(RFC3339.string(from: first))",
                 "rotation":["\(ben)","\(cara)","\(ana)"]}
                """
            let created = try await http.post("\(base)/chores", json: create, headers: flat.ana)
            #expect(created.status == 201 && created.json?["assignee"] == .string(ben), "\(created.text)")
            let chore = try #require(HouseholdRouteTests.string(created, "id"))
            // Ben hears it is his turn, and a reminder is set an hour before, at 18:00 Dublin time.
            let outbox = try #require(http.databases["household"])
            let reminders = try await outbox.sentRequests("notifications.schedule.set.v1")
            #expect(reminders.last?["start"] == .string(ChoreSchedule.localMinute(first.addingTimeInterval(-3600), calendar)), "\(reminders)")
            #expect(reminders.last?["recipient"] == .string(roommates.ben.uuidString.lowercased()))

            // Week 1: Ben does it on time; Cara's turn, a week later.
            clock.advance(.seconds(Int64(first.timeIntervalSince(clock.now())) - 600))
            let done = try await http.post("\(base)/chores/\(chore)/turns", json: #"{"comment":"Recycling too"}"#, headers: try await http.signedIn(roommates.ben, as: .roommate))
            #expect(done.status == 201 && done.json?["outcome"] == "on-time" && done.json?["doneBy"] == .string(ben), "\(done.text)")
            // Cara taps "done" on the turn Ben just did: 409 with the chore as it is, not a second turn.
            let twice = try await http.post(
                "\(base)/chores/\(chore)/turns", json: #"{"dueAt":"\#(RFC3339.string(from: first))"}"#, headers: try await http.signedIn(roommates.cara, as: .roommate))
            #expect(twice.status == 409 && twice.json?["current"]?["assignee"] == .string(cara), "\(twice.text)")
            let week2 = try await http.get("\(base)/chores/\(chore)", headers: try await http.signedIn(roommates.ana, as: .roommate))
            #expect(week2.json?["assignee"] == .string(cara) && week2.json?["dueAt"] == .string(RFC3339.string(from: first.addingTimeInterval(7 * 86_400))))

            // Week 2: nobody does it; when week 3's due time comes, the job skips Cara's turn and it is Ana's.
            clock.advance(.seconds(14 * 86_400 + 3_600))
            #expect(await skip.round() == 1)
            #expect(await skip.round() == 0, "once")
            let week3 = try await http.get("\(base)/chores/\(chore)", headers: try await http.signedIn(roommates.ana, as: .roommate))
            #expect(week3.json?["assignee"] == .string(ana), "\(week3.text)")
            // Ana does it a day late.
            clock.advance(.seconds(86_400))
            let late = try await http.post("\(base)/chores/\(chore)/turns", json: "{}", headers: try await http.signedIn(roommates.ana, as: .roommate))
            #expect(late.json?["outcome"] == "late", "\(late.text)")

            // Ben's turn now; he goes away, so it passes to Cara; once she is done, it is Ana's (Ben still away).
            #expect(try await http.get("\(base)/chores/\(chore)", headers: try await http.signedIn(roommates.ana, as: .roommate)).json?["assignee"] == .string(ben))
            let away = try await http.send("PUT", "\(base)/away", body: Array(#"{"away":true}"#.utf8), headers: try await http.signedIn(roommates.ben, as: .roommate))
            #expect(away.status == 200 && HouseholdRouteTests.members(away).contains { $0["memberId"] == .string(ben) && $0["away"] == true }, "\(away.text)")
            let passed = try await http.get("\(base)/chores/\(chore)", headers: try await http.signedIn(roommates.ana, as: .roommate))
            #expect(passed.json?["assignee"] == .string(cara), "Ben away, Cara's turn: \(passed.text)")
            let caraDone = try await http.post("\(base)/chores/\(chore)/turns", json: "{}", headers: try await http.signedIn(roommates.cara, as: .roommate))
            #expect(caraDone.status == 201 && caraDone.json?["outcome"] == "on-time" && caraDone.json?["assignee"] == .string(cara), "\(caraDone.text)")
            #expect(try await http.get("\(base)/chores/\(chore)", headers: try await http.signedIn(roommates.ana, as: .roommate)).json?["assignee"] == .string(ana))

            // The history, newest first, and the stats per member.
            let turns = try await http.get("\(base)/chores/\(chore)/turns", headers: try await http.signedIn(roommates.cara, as: .roommate))
            guard case .array(let history)? = turns.json?["turns"] else { Issue.record("\(turns.text)"); return }
            #expect(history.map(\.["outcome"]) == ["on-time", "late", "skipped", "on-time"], "\(turns.text)")
            let stats = try await http.get("\(base)/chore-stats?period=month", headers: try await http.signedIn(roommates.cara, as: .roommate))
            guard case .array(let rows)? = stats.json?["stats"] else { Issue.record("\(stats.text)"); return }
            func total(_ member: String, _ key: String) -> Int {
                rows.filter { $0["memberId"] == .string(member) }.compactMap { if case .number(let n)? = $0[key] { Int(n) } else { nil } }.reduce(0, +)
            }
            let counted: [Int] = [total(ben, "onTime"), total(cara, "skipped"), total(ana, "late"), total(cara, "onTime"), total(ben, "skipped")]
            #expect(counted == [1, 1, 1, 1, 0], "\(stats.text)")

            // A stranger gets what a made-up chore gets; deleting cancels the reminder.
            let stranger = try await http.signedIn(UUID(), as: .roommate)
            #expect(try await http.get("\(base)/chores/\(chore)", headers: stranger).status == 404)
            #expect(try await http.send("DELETE", "\(base)/chores/\(chore)", headers: try await http.signedIn(roommates.ana, as: .roommate)).status == 200)
            #expect(try await outbox.sentRequests("notifications.schedule.cancel.v1").contains { $0["key"] == .string("chore-\(chore)") })
        }
    }

    @Test func badChoresAreRefusedFieldByField() async throws {
        try await InProcessStack.with([.household]) { http in
            let flat = try await roommates.flat(http)
            let bad = try await http.post(
                "/v1/households/\(flat.id)/chores",
                json: #"{"title":"Hoover","frequency":"weekly","timeZone":"Mars/Olympus","dueAt":"2026-12-02T19:00:00Z","rotation":["\#(UUID().uuidString.lowercased())"]}"#,
                headers: flat.ana)
            #expect(bad.status == 400 && GroceryRouteTests.errorFields(bad) == ["weekdays", "timeZone"], "\(bad.text)")
            let stranger = try await http.post(
                "/v1/households/\(flat.id)/chores",
                json: #"{"title":"Hoover","frequency":"daily","dueAt":"2026-12-02T19:00:00Z","rotation":["\#(UUID().uuidString.lowercased())"]}"#,
                headers: flat.ana)
            #expect(stranger.status == 400 && GroceryRouteTests.errorFields(stranger) == ["rotation[0]"], "\(stranger.text)")
            // A due time long past would have the skip job catch up turns without end.
            let ancient = try await http.post(
                "/v1/households/\(flat.id)/chores", json: #"{"title":"Hoover","frequency":"daily","dueAt":"1900-01-01T10:00:00Z"}"#, headers: flat.ana)
            #expect(ancient.status == 400 && GroceryRouteTests.errorFields(ancient) == ["dueAt"], "\(ancient.text)")
        }
    }
}
}
