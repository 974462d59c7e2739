import Envelope
import Foundation
import Testing
import TestSupport

/// A signed-in student's interview through the gateway: kept per user and tax year, versioned so two
/// devices never overwrite each other, sealed in the database, masked in replies, gone with the account.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(5))) struct TaxFormInterviewTests {
    static func patch(_ http: HTTPTestClient, _ body: String, token: String, year: Int = 2024) async throws -> HTTPTestClient.Reply {
        try await http.send("PATCH", "/v1/tax/interviews/\(year)", body: Array(body.utf8), headers: ["Authorization": "Bearer \(token)"])
    }

    @Test func twoDevicesAnswerOneInterviewAndNothingIsLostOrLeaked() async throws {
        let stack = try await AuthStack(taxForm: true)
        try await stack.with { http in
            let mei = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: "mei@tcd.ie", username: "mei")
            let asMei = ["Authorization": "Bearer \(mei.access)"]
            let empty = try await http.send("GET", "/v1/tax/interviews/2024", headers: asMei)
            #expect(empty.status == 200 && empty.json?["version"] == 0 && empty.json?["assessment"]?["complete"] == false, "\(empty.text)")

            // Two devices save against version 0 at once: one wins, the other hears 409 with the
            // interview as it is now, merges, and saves against that version.
            async let phone = Self.patch(http, #"{"version":0,"answers":{"citizen":false,"tin":"912-70-1234"}}"#, token: mei.access)
            async let laptop = Self.patch(http, #"{"version":0,"answers":{"greenCard":"no"},"skip":["visa.entryDate"]}"#, token: mei.access)
            let replies = try await [phone, laptop]
            #expect(replies.map(\.status).sorted() == [200, 409], "\(replies.map(\.text))")
            let lost = try #require(replies.first { $0.status == 409 })
            #expect(lost.header("content-type") == "application/problem+json" && lost.json?["current"]?["version"] == 1, "\(lost.text)")
            let retry = lost.json?["current"]?["answers"]?["citizen"] == false
                ? #"{"version":1,"answers":{"greenCard":"no"},"skip":["visa.entryDate"]}"#
                : #"{"version":1,"answers":{"citizen":false,"tin":"912-70-1234"}}"#
            let merged = try await Self.patch(http, retry, token: mei.access)
            #expect(merged.status == 200 && merged.json?["version"] == 2, "\(merged.text)")
            #expect(merged.json?["answers"] == ["citizen": false, "greenCard": "no", "tin": "***-**-1234"], "the SSN masked")
            #expect(merged.json?["skipped"] == ["visa.entryDate"])

            // A W-2, box by box: checked, added, masked.
            let w2 = #"{"version":2,"w2":{"employerName":"Campus Dining","employerEIN":"123456789","employeeTIN":"912701234","wagesCents":2000000,"federalWithheldCents":180000}}"#
            let bad = try await http.send("POST", "/v1/tax/interviews/2024/w2s", body: Array(w2.replacingOccurrences(of: "180000", with: "3000000").utf8), headers: asMei)
            #expect(bad.status == 400 && bad.json?["fields"] == [["field": "w2.federalWithheldCents", "message": "box 2 cannot be more than box 1 (wagesCents)"]], "\(bad.text)")
            let added = try await http.send("POST", "/v1/tax/interviews/2024/w2s", body: Array(w2.utf8), headers: asMei)
            #expect(added.status == 200 && added.json?["version"] == 3, "\(added.text)")
            guard case .array(let w2s)? = added.json?["answers"]?["income.w2s"], let first = w2s.first else { Issue.record("no W-2: \(added.text)"); return }
            #expect(first["employerEIN"] == "12-3456789" && first["employeeTIN"] == "***-**-1234")

            // The history, newest first, masked.
            let history = try await http.send("GET", "/v1/tax/interviews/2024/history?limit=2", headers: asMei)
            guard case .array(let changes)? = history.json?["changes"] else { Issue.record("no history: \(history.text)"); return }
            #expect(changes.compactMap { $0["version"] } == [3, 2] && history.json?["nextAfter"] == 2, "\(history.text)")
            let older = try await http.send("GET", "/v1/tax/interviews/2024/history?after=2", headers: asMei)
            guard case .array(let oldest)? = older.json?["changes"] else { Issue.record("no first change: \(older.text)"); return }
            #expect(oldest.compactMap { $0["version"] } == [1] && older.json?["nextAfter"] == nil, "\(older.text)")
            let answerChanges = (changes + oldest).flatMap { change -> [JSONValue] in
                if case .array(let answers)? = change["answers"] { answers } else { [] }
            }
            #expect(answerChanges.contains { $0["question"] == "tin" && $0["to"] == "***-**-1234" && $0["from"] == nil }, "\(answerChanges)")

            // Sealed at rest: neither the SSN nor the question ids are in the stored bytes.
            for text in ["912-70-1234", "912701234", "citizen", "Campus Dining"] {
                #expect(try await TestDatabase.integer(
                    "SELECT count(*)::int FROM tax_form.interviews WHERE position(convert_to('\(text)', 'UTF8') in sealed) > 0", on: stack.databaseURL) == 0)
                #expect(try await TestDatabase.integer(
                    "SELECT count(*)::int FROM tax_form.interview_changes WHERE position(convert_to('\(text)', 'UTF8') in sealed) > 0", on: stack.databaseURL) == 0)
            }

            // A second W-2: its change keeps that W-2 alone (item 1), not the whole list twice.
            let second = #"{"version":3,"w2":{"employerName":"Library","employerEIN":"123456789","wagesCents":100000,"federalWithheldCents":0,"localityName":"Boston"}}"#
            #expect(try await http.send("POST", "/v1/tax/interviews/2024/w2s", body: Array(second.utf8), headers: asMei).status == 200)
            let newest = try await http.send("GET", "/v1/tax/interviews/2024/history?limit=1", headers: asMei)
            #expect(TaxFormPreviewTests.first(newest.json?["changes"])?["answers"] == [["question": "income.w2s", "item": 1, "to": [
                "employerName": "Library", "employerEIN": "12-3456789", "wagesCents": 100000, "federalWithheldCents": 0, "localityName": "Boston"]]], "\(newest.text)")
            // Every text of a W-2 is bounded, through POST (the gateway) and PATCH (the interview's check) alike.
            let longLocality = String(repeating: "B", count: 41)
            let long = try await http.send("POST", "/v1/tax/interviews/2024/w2s", body: Array(second.replacingOccurrences(of: "\"Boston\"", with: "\"\(longLocality)\"").replacingOccurrences(of: "\"version\":3", with: "\"version\":4").utf8), headers: asMei)
            #expect(long.status == 400 && TaxFormPreviewTests.first(long.json?["fields"])?["field"] == "w2.localityName", "\(long.text)")
            let oneW2: [String: Any] = ["employerName": "Library", "employerEIN": "12-3456789", "wagesCents": 100, "federalWithheldCents": 0]
            let patched = try JSONSerialization.data(withJSONObject: ["version": 4, "answers": ["income.w2s": [oneW2.merging(["localityName": longLocality]) { $1 }]]])
            let longPatch = try await http.send("PATCH", "/v1/tax/interviews/2024", body: Array(patched), headers: asMei)
            #expect(longPatch.status == 400 && TaxFormPreviewTests.first(longPatch.json?["fields"])?["field"] == "answers.income.w2s[0].localityName", "\(longPatch.text)")
            // 19.99 x 100 in floating point: refused naming the member, in whole cents.
            let fraction = #"{"version":4,"answers":{"income.w2s":[{"employerName":"Library","employerEIN":"12-3456789","wagesCents":1998.9999999999998,"federalWithheldCents":0}]}}"#
            let fractional = try await http.send("PATCH", "/v1/tax/interviews/2024", body: Array(fraction.utf8), headers: asMei)
            let named = TaxFormPreviewTests.first(fractional.json?["fields"])
            #expect(fractional.status == 400 && named?["field"] == "answers.income.w2s[0].wagesCents", "\(fractional.text)")
            #expect(fractional.text.contains("whole cents"), "\(fractional.text)")
            // At most 20 W-2s, added one by one as in a list.
            let twenty = try JSONSerialization.data(withJSONObject: ["version": 4, "answers": ["income.w2s": Array(repeating: oneW2, count: 20)]])
            #expect(try await http.send("PATCH", "/v1/tax/interviews/2024", body: Array(twenty), headers: asMei).status == 200)
            let twentyFirst = try await http.send("POST", "/v1/tax/interviews/2024/w2s", body: Array(second.replacingOccurrences(of: "\"version\":3", with: "\"version\":5").utf8), headers: asMei)
            #expect(twentyFirst.status == 400 && TaxFormPreviewTests.first(twentyFirst.json?["fields"])?["field"] == "w2", "\(twentyFirst.text)")

            // Any earlier version, as it was then (masked as the interview is): rebuilt from the history
            // over twenty W-2s replacing two, a second added after the first, and the skip.
            for (version, then) in [(2, merged), (3, added)] {
                let read = try await http.send("GET", "/v1/tax/interviews/2024/versions/\(version)", headers: asMei)
                #expect(read.status == 200 && read.json?["answers"] == then.json?["answers"] && read.json?["skipped"] == then.json?["skipped"], "\(version): \(read.text)")
            }
            let fourth = try await http.send("GET", "/v1/tax/interviews/2024/versions/4", headers: asMei)
            guard case .array(let fourthW2s)? = fourth.json?["answers"]?["income.w2s"] else { Issue.record("no W-2s at version 4: \(fourth.text)"); return }
            #expect(fourthW2s.count == 2 && fourthW2s[1]["employerName"] == "Library", "\(fourth.text)")
            let none = try await http.send("GET", "/v1/tax/interviews/2024/versions/0", headers: asMei)
            #expect(none.status == 200 && none.json?["answers"] == [:] && none.json?["at"] == nil, "\(none.text)")
            #expect(try await http.send("GET", "/v1/tax/interviews/2024/versions/99", headers: asMei).status == 404)

            // Everything tax-form holds, unmasked, once auth confirms the password; each such read is recorded for Mei to see.
            let wrongPassword = try await http.send("POST", "/v1/tax/export", body: Array(#"{"password":"not my password"}"#.utf8), headers: asMei)
            #expect(wrongPassword.status == 400 && TaxFormPreviewTests.first(wrongPassword.json?["fields"])?["field"] == "password", "\(wrongPassword.text)")
            #expect(try await http.send("GET", "/v1/tax/reads", headers: asMei).json?["reads"] == [], "a refused export reads nothing")
            let exported = try await http.send("POST", "/v1/tax/export", body: Array(#"{"password":"correct horse battery staple mei"}"#.utf8), headers: asMei)
            #expect(exported.status == 200, "\(exported.text.prefix(300))")
            let interview = TaxFormPreviewTests.first(exported.json?["interviews"])
            #expect(interview?["answers"]?["tin"] == "912-70-1234" && interview?["taxYear"] == 2024, "unmasked: \(exported.text.prefix(300))")
            guard case .array(let exportedHistory)? = interview?["history"] else { Issue.record("no history in the export"); return }
            #expect(exportedHistory.count == 5 && exportedHistory.first?["version"] == 5, "every change, newest first")
            let reads = try await http.send("GET", "/v1/tax/reads", headers: asMei)
            let read = TaxFormPreviewTests.first(reads.json?["reads"])
            #expect(read?["what"] == "export" && read?["app"] == "melon" && read?["session"] != nil, "\(reads.text)")

            // Another student sees only their own interview; a stale version from them is a 409 about theirs.
            let conor = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: "conor@tcd.ie", username: "conor")
            let theirs = try await http.send("GET", "/v1/tax/interviews/2024", headers: ["Authorization": "Bearer \(conor.access)"])
            #expect(theirs.json?["version"] == 0 && theirs.json?["answers"] == [:], "\(theirs.text)")
            let notTheirs = try await http.send("GET", "/v1/tax/interviews/2024/versions/2", headers: ["Authorization": "Bearer \(conor.access)"])
            #expect(notTheirs.status == 404, "another student reads nothing of Mei's versions: \(notTheirs.text)")
            let theirReads = try await http.send("GET", "/v1/tax/reads", headers: ["Authorization": "Bearer \(conor.access)"])
            #expect(theirReads.status == 200 && theirReads.json?["reads"] == [], "nor of Mei's reads: \(theirReads.text)")
            let stale = try await Self.patch(http, #"{"version":3,"answers":{"citizen":true}}"#, token: conor.access)
            #expect(stale.status == 409 && stale.json?["current"]?["version"] == 0 && stale.json?["current"]?["answers"] == [:], "\(stale.text)")
            #expect(try await http.send("GET", "/v1/tax/interviews/2024").status == 401)

            // Deleting an interview deletes it and its history; there is nothing left to delete again.
            let asConor = ["Authorization": "Bearer \(conor.access)"]
            #expect(try await Self.patch(http, #"{"version":0,"answers":{"citizen":false}}"#, token: conor.access, year: 2025).status == 200)
            let gone = try await http.send("DELETE", "/v1/tax/interviews/2025", headers: asConor)
            #expect(gone.status == 200 && gone.json?["deleted"] == true, "\(gone.text)")
            #expect(try await http.send("GET", "/v1/tax/interviews/2025", headers: asConor).json?["version"] == 0)
            #expect(try await http.send("GET", "/v1/tax/interviews/2025/history", headers: asConor).json?["changes"] == [])
            let again = try await http.send("DELETE", "/v1/tax/interviews/2025", headers: asConor)
            #expect(again.status == 404 && again.json?["fields"] == [["field": "taxYear", "message": "has no interview of yours"]], "\(again.text)")

            // Deleting the account erases the interviews, their history and the data key.
            let deleted = try await http.send("DELETE", "/v1/me", body: Array(#"{"password":"correct horse battery staple mei"}"#.utf8), headers: asMei)
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(await eventually(timeout: .seconds(20)) {
                try await TestDatabase.integer("SELECT count(*)::int FROM tax_form.interviews", on: stack.databaseURL) == 0
            })
            #expect(try await TestDatabase.integer("SELECT count(*)::int FROM tax_form.interview_changes", on: stack.databaseURL) == 0)
            #expect(try await TestDatabase.integer("SELECT count(*)::int FROM tax_form.account_keys", on: stack.databaseURL) == 1, "Conor's key stays, Mei's goes")
            #expect(try await TestDatabase.integer("SELECT count(*)::int FROM tax_form.unmasked_reads", on: stack.databaseURL) == 0, "Mei's reads go with her")

            // tax-form signs in as a role of its own, which reaches its schema and no other service's.
            let own = try #require(stack.taxFormDatabaseURL)
            #expect(try await TestDatabase.integer("SELECT count(*)::int FROM tax_form.account_keys", on: own) == 1)
            await #expect(throws: (any Error).self, "auth's accounts are out of tax-form's reach") {
                try await TestDatabase.integer("SELECT count(*)::int FROM auth.accounts", on: own)
            }
        }
    }

    @Test func aNewYearTakesTheAnswersAboutYouFromTheLastOne() async throws {
        let stack = try await AuthStack(taxForm: true)
        try await stack.with { http in
            let mei = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: "mei@tcd.ie", username: "mei")
            let asMei = ["Authorization": "Bearer \(mei.access)"]
            let address = #"{"line1":"1 Silber Way","city":"Boston","state":"MA","postalCode":"02215","country":"US"}"#
            let lastYear = try await Self.patch(
                http, #"{"version":0,"answers":{"citizen":false,"name.first":"Mei","tin":"912-70-1234","address.us":\#(address)}}"#, token: mei.access)
            #expect(lastYear.status == 200, "\(lastYear.text)")

            // The new year offers what is about Mei, not about the year; nobody else is offered it.
            let offered = try await http.send("GET", "/v1/tax/interviews/2025", headers: asMei)
            #expect(offered.json?["carryOver"] == ["fromYear": 2024, "questions": ["name.first", "tin", "address.us"]], "\(offered.text)")
            #expect(try await http.send("GET", "/v1/tax/interviews/2023", headers: asMei).json?["carryOver"] == nil)
            let conor = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: "conor@tcd.ie", username: "conor")
            #expect(try await http.send("GET", "/v1/tax/interviews/2025", headers: ["Authorization": "Bearer \(conor.access)"]).json?["carryOver"] == nil)

            // Taking it copies those answers (an answer in the same change wins) and nothing else.
            let taken = try await Self.patch(http, #"{"version":0,"carryOver":true,"answers":{"name.first":"Meiling"}}"#, token: mei.access, year: 2025)
            #expect(taken.status == 200 && taken.json?["version"] == 1, "\(taken.text)")
            #expect(taken.json?["answers"] == [
                "name.first": "Meiling", "tin": "***-**-1234",
                "address.us": ["line1": "1 Silber Way", "city": "Boston", "state": "MA", "postalCode": "02215", "country": "US"],
            ], "\(taken.text)")
            #expect(try await http.send("GET", "/v1/tax/interviews/2025", headers: asMei).json?["carryOver"] == nil, "nothing left to take")
        }
    }
}
}
