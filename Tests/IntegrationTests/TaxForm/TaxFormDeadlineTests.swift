import Envelope
import Foundation
import Testing
import TestSupport

/// Deadlines and their reminders through the gateway: the reminders are notifications schedules,
/// set when the forms are decided, moved when the deadline moves and stopped when the return is filed.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(5))) struct TaxFormDeadlineTests {
    @Test func remindersFollowTheDeadlineAndStopOnceFiled() async throws {
        let pushLog = FileManager.default.temporaryDirectory.appendingPathComponent("melon-push-\(UUID().uuidString).log").path
        let stack = try await AuthStack(notifications: ["PUSH_LOG": pushLog], taxForm: true)
        try await stack.with { http in
            let mei = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: "mei@tcd.ie", username: "mei")
            let asMei = ["Authorization": "Bearer \(mei.access)"]
            let databaseURL = stack.databaseURL
            @Sendable func schedules(_ condition: String = "true") async throws -> Int {
                try await TestDatabase.integer(
                    "SELECT count(*)::int FROM notifications.schedules WHERE key LIKE 'tax-deadline-2026-%' AND \(condition)", on: databaseURL)
            }
            // Tax year 2026, filed in 2027: an F-1 student in her first year without income files 8843 alone by June 15.
            var answers: [String: Any] = [
                "citizen": false, "greenCard": "no", "visa": "F", "visa.changed": false, "visa.earlierYears": 0,
                "days.thisYear": 120, "days.lastYear": 0, "days.twoYearsAgo": 0, "income.any": false,
            ]
            for year in 1...6 { answers["visa.prior\(year)"] = "none" }
            let body = try JSONSerialization.data(withJSONObject: ["version": 0, "answers": answers])
            let decided = try await http.send("PATCH", "/v1/tax/interviews/2026", body: Array(body), headers: asMei)
            #expect(decided.status == 200 && decided.json?["assessment"]?["decision"]?["forms"] == ["8843"], "\(decided.text)")
            let deadlines = try await http.send("GET", "/v1/tax/deadlines?taxYear=2026", headers: asMei)
            #expect(deadlines.json?["due"] == "2027-06-15" && deadlines.json?["reminders"] == [
                ["daysBefore": 30, "date": "2027-05-16"], ["daysBefore": 7, "date": "2027-06-08"], ["daysBefore": 1, "date": "2027-06-14"],
            ], "\(deadlines.text)")
            #expect(await eventually(timeout: .seconds(20)) { try await schedules("request->>'start' LIKE '2027-0%-%T10:00'") == 3 })
            // The interview is not finished: a nudge a week after this change, at 10:00 local time.
            let nudge = "SELECT count(*)::int FROM notifications.schedules WHERE key LIKE 'tax-unfinished-2026-%'"
            let weekOn = String(RFC3339.string(from: Date().addingTimeInterval(7 * 86_400)).prefix(10))
            #expect(await eventually(timeout: .seconds(20)) {
                try await TestDatabase.integer(nudge + " AND request->>'start' = '\(weekOn)T10:00'", on: databaseURL) == 1
            })

            // Wages move the deadline to April 15: the same three schedules move with it.
            let w2 = #"{"version":1,"w2":{"employerName":"Campus Dining","employerEIN":"12-3456789","wagesCents":500000,"federalWithheldCents":20000}}"#
            let income = try await http.send("PATCH", "/v1/tax/interviews/2026", body: Array(#"{"version":1,"answers":{"income.any":true}}"#.utf8), headers: asMei)
            #expect(income.json?["version"] == 2, "\(income.text)")
            let added = try await http.send("POST", "/v1/tax/interviews/2026/w2s", body: Array(w2.replacingOccurrences(of: "\"version\":1", with: "\"version\":2").utf8), headers: asMei)
            #expect(added.json?["assessment"]?["decision"]?["forms"] == ["1040-NR", "8843"], "\(added.text)")
            #expect(try await http.send("GET", "/v1/tax/deadlines?taxYear=2026", headers: asMei).json?["due"] == "2027-04-15")
            #expect(await eventually(timeout: .seconds(20)) {
                let moved = try await schedules("request->>'start' LIKE '2027-04-14T10:00'"), all = try await schedules()
                return moved == 1 && all == 3
            })

            // Filed: the reminders stop, and stay stopped when an answer changes afterwards.
            let filed = try await http.send("POST", "/v1/tax/interviews/2026/filed", headers: asMei)
            #expect(filed.status == 200 && filed.json?["filedAt"] != nil, "\(filed.text)")
            #expect(await eventually(timeout: .seconds(20)) { try await schedules() == 0 })
            #expect(try await TestDatabase.integer(nudge, on: databaseURL) == 0, "no nudge to finish a filed return")
            let setsQueued = "SELECT count(*)::int FROM tax_form.outbox WHERE type = 'notifications.schedule.set.v1'"
            let setsBefore = try await TestDatabase.integer(setsQueued, on: databaseURL)
            let after = try await http.send("PATCH", "/v1/tax/interviews/2026", body: Array(#"{"version":3,"answers":{"name.first":"Mei"}}"#.utf8), headers: asMei)
            #expect(after.status == 200, "\(after.text)")
            let quiet = try await http.send("GET", "/v1/tax/deadlines?taxYear=2026", headers: asMei)
            #expect(quiet.json?["reminders"] == [] && quiet.json?["filedAt"] != nil, "\(quiet.text)")
            #expect(try await TestDatabase.integer(setsQueued, on: databaseURL) == setsBefore, "no reminder is set again once filed")
        }
    }
}
}
