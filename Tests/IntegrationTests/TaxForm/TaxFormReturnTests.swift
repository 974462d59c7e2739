import Crypto
import Envelope
import Foundation
import Testing
import TestSupport

/// The finished return as a PDF through the gateway: downloaded (the official 2024 Form 1040 filled,
/// read back by pypdf) and mailed through pdf-email's queue to a real SMTP server, encrypted unless the
/// student asks otherwise; an unfinished interview gets no PDF.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(5))) struct TaxFormReturnTests {
    /// A sixth-year F-1 student, resident, with one W-2: everything answered that the 1040 shows.
    static var resident: [String: Any] {
        var answers: [String: Any] = [
            "citizen": false, "greenCard": "no", "visa": "F", "visa.changed": false, "visa.earlierYears": 0,
            "days.thisYear": 366, "days.lastYear": 365, "days.twoYearsAgo": 365, "days.januaryFirst": true, "closerConnection": false,
            "income.any": true, "income.other": false,
            "income.w2s": [["employerName": "Campus Dining", "employerEIN": "12-3456789", "wagesCents": 3_000_100, "federalWithheldCents": 250_000]],
            "filing.married": false, "filing.dependents": false, "filing.claimedAsDependent": false,
            "name.first": "Mei", "name.last": "Ling", "tin": "912-70-1234", "email": "mei.forms@tcd.ie", "occupation": "Student",
            "address.us": ["line1": "1 Silber Way", "city": "Boston", "state": "MA", "postalCode": "02215", "country": "US"],
        ]
        for year in 1...5 { answers["visa.prior\(year)"] = "F" }
        answers["visa.prior6"] = "none"
        return answers
    }

    @Test func aFinishedReturnIsDownloadedAndMailedAsTheSamePDF() async throws {
        let stack = try await AuthStack(taxForm: true, curve: true)
        try await stack.with { http in
            let mei = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: "mei@tcd.ie", username: "mei")
            let asMei = ["Authorization": "Bearer \(mei.access)"]
            let body = try JSONSerialization.data(withJSONObject: ["version": 0, "answers": Self.resident])
            let saved = try await http.send("PATCH", "/v1/tax/interviews/2024", body: Array(body), headers: asMei)
            #expect(saved.status == 200 && saved.json?["assessment"]?["decision"]?["forms"] == ["1040"], "\(saved.text)")

            // Unfinished: no PDF yet, and the reply says what is open.
            let early = try await http.send("GET", "/v1/tax/returns/2024/pdf", headers: asMei)
            #expect(early.status == 409 && TaxFormPreviewTests.first(early.json?["fields"])?["field"] == "taxYear", "\(early.text)")
            guard case .array(let missing)? = saved.json?["assessment"]?["missing"] else { Issue.record("no missing list"); return }
            let open = missing.compactMap { item -> String? in if case .string(let id)? = item["question"] { id } else { nil } }
            let skip = try JSONSerialization.data(withJSONObject: ["version": 1, "skip": open])
            let finished = try await http.send("PATCH", "/v1/tax/interviews/2024", body: Array(skip), headers: asMei)
            #expect(finished.status == 200 && finished.json?["version"] == 2, "\(finished.text)")

            // Downloaded: the official Form 1040, filled, and what every viewer shows.
            let download = try await http.send("GET", "/v1/tax/returns/2024/pdf", headers: asMei)
            #expect(download.status == 200 && download.header("content-type") == "application/pdf", "\(download.text.prefix(300))")
            #expect(download.header("content-disposition") == #"attachment; filename="melon-tax-return-2024.pdf""#)
            let pdf = Data(download.body)
            let read = try await PDFInspection.of(pdf)
            let page1 = "topmostSubform[0].Page1[0].", page2 = "topmostSubform[0].Page2[0]."
            #expect(read.pages == 3 && !read.encrypted, "the 1040's two pages and the filing instructions")
            let instructions = read.text.last ?? ""
            #expect(instructions.contains("How to file these forms") && instructions.contains("2025-04-15") && instructions.contains("Form 1040, page 2"), "\(instructions)")
            for (field, value) in [
                page1 + "f1_04[0]": "Mei", page1 + "f1_06[0]": "912701234", page1 + "Address_ReadOrder[0].f1_13[0]": "MA",
                page1 + "f1_32[0]": "30,001", page1 + "f1_57[0]": "14,600", page1 + "f1_60[0]": "15,401",
                page2 + "f2_11[0]": "2,500", page2 + "f2_38[0]": "mei.forms@tcd.ie",
            ] {
                #expect(read.fields[field] == value && read.appearances[field] == value, "\(field): \(read.fields[field] ?? "nothing")")
            }
            #expect(read.fields[page1 + "FilingStatus_ReadOrder[0].c1_3[0]"] != "/Off", "single is checked")
            // The PDF shows the full SSN: the download is recorded where Mei sees it.
            let reads = try await http.send("GET", "/v1/tax/reads", headers: asMei)
            #expect(TaxFormPreviewTests.first(reads.json?["reads"])?["what"] == "pdf" && TaxFormPreviewTests.first(reads.json?["reads"])?["taxYear"] == 2024, "\(reads.text)")

            // The same version is the same PDF, kept (sealed) rather than filled again: its ETag answers 304.
            let etag = try #require(download.header("etag"), "\(download.headers)")
            let again = try await http.send("GET", "/v1/tax/returns/2024/pdf", headers: asMei)
            #expect(again.status == 200 && again.header("etag") == etag && Data(again.body) == pdf, "a second download is the same bytes")
            let unchanged = try await http.send("GET", "/v1/tax/returns/2024/pdf", headers: asMei.merging(["If-None-Match": etag]) { $1 })
            #expect(unchanged.status == 304 && unchanged.body.isEmpty && unchanged.header("etag") == etag, "\(unchanged.status)")
            let weak = try await http.send("GET", "/v1/tax/returns/2024/pdf", headers: asMei.merging(["If-None-Match": #""other", W/"# + etag]) { $1 })
            #expect(weak.status == 304, "a weak tag in a list matches: \(weak.status)")
            let stale = try await http.send("GET", "/v1/tax/returns/2024/pdf", headers: asMei.merging(["If-None-Match": #""0000""#]) { $1 })
            #expect(stale.status == 200 && Data(stale.body) == pdf, "another tag gets the file: \(stale.status)")
            let sealed = "SELECT count(*)::int FROM tax_form.return_pdfs WHERE position(convert_to('912701234', 'UTF8') in sealed) = 0 AND position(convert_to('%PDF', 'UTF8') in sealed) = 0"
            #expect(try await TestDatabase.integer(sealed, on: stack.databaseURL) == 1, "one PDF kept, and not in the clear")

            // Mailed unencrypted on request: the attachment that arrives over SMTP is the download.
            let mailed = try await http.post("/v1/tax/returns/2024/email", json: #"{"unencrypted":true}"#, headers: asMei)
            #expect(mailed.status == 202 && mailed.json?["to"] == "m***@tcd.ie" && mailed.json?["encrypted"] == false, "\(mailed.text)")
            #expect(mailed.json?["remaining"] == 4, "\(mailed.text)")
            #expect(await eventually(timeout: .seconds(30)) { try stack.mailCount(to: "mei.forms@tcd.ie") == 1 })
            // Once sent, the unencrypted PDF is kept nowhere: not in pdf-email's mail, not in tax-form's outbox.
            let bodies = "SELECT count(*)::int FROM pdf_email.mails WHERE octet_length(message) > 0 AND 'mei.forms@tcd.ie' = ANY(recipients)"
            #expect(await eventually(timeout: .seconds(10)) { try await TestDatabase.integer(bodies, on: stack.databaseURL) == 0 }, "the sent mail keeps no body")
            let payloads = "SELECT count(*)::int FROM tax_form.outbox WHERE type = 'pdf-email.mail.send.v1' AND (delivered_at IS NULL OR octet_length(data) > 0)"
            #expect(await eventually(timeout: .seconds(10)) { try await TestDatabase.integer(payloads, on: stack.databaseURL) == 0 }, "the delivered request keeps no payload")
            let plain = try await SMTPSink.inspect(try #require(try stack.mails(to: "mei.forms@tcd.ie").first))
            let attachments = try #require(plain["attachments"] as? [[String: Any]])
            #expect(attachments.first?["name"] as? String == "melon-tax-return-2024.pdf")
            #expect(attachments.first?["sha256"] as? String == Self.text(mailed.json?["sha256"]) && attachments.count == 1)
            #expect(download.header("content-length").map(Int.init) == pdf.count)
            #expect(Self.text(mailed.json?["sha256"]) == Self.sha256(pdf), "the mailed PDF is the downloaded one")
            #expect((plain["text"] as? String)?.contains("not encrypted") == true)

            // By default the attachment is encrypted with the student's password.
            let refused = try await http.post("/v1/tax/returns/2024/email", json: "{}", headers: asMei)
            #expect(refused.status == 400 && TaxFormPreviewTests.first(refused.json?["fields"])?["field"] == "password", "\(refused.text)")
            let locked = try await http.post("/v1/tax/returns/2024/email", json: #"{"password":"maple syrup 42"}"#, headers: asMei)
            #expect(locked.status == 202 && locked.json?["encrypted"] == true, "\(locked.text)")
            #expect(await eventually(timeout: .seconds(30)) { try stack.mailCount(to: "mei.forms@tcd.ie") == 2 })
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("melon-attachments-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var encryptedMail: [String: Any] = [:]
            for mail in try stack.mails(to: "mei.forms@tcd.ie") where (try await SMTPSink.inspect(mail)["text"] as? String)?.contains("password you chose") == true {
                encryptedMail = try await SMTPSink.inspect(mail, savingAttachmentsTo: folder)
            }
            #expect((encryptedMail["text"] as? String)?.contains("912-70-1234") == false, "no SSN in the mail itself")
            let attached = try Data(contentsOf: folder.appendingPathComponent("melon-tax-return-2024.pdf"))
            let closed = try await PDFInspection.of(attached)
            #expect(closed.encrypted && !closed.opened && closed.encryption == ["V": 5, "R": 6])
            let opened = try await PDFInspection.of(attached, password: "maple syrup 42")
            #expect(opened.opened && opened.fields[page1 + "f1_06[0]"] == "912701234")

            // Five mails a day: the sixth is refused until the oldest is a day old.
            for _ in 1...3 {
                #expect(try await http.post("/v1/tax/returns/2024/email", json: #"{"password":"maple syrup 42"}"#, headers: asMei).status == 202)
            }
            let sixth = try await http.post("/v1/tax/returns/2024/email", json: #"{"password":"maple syrup 42"}"#, headers: asMei)
            #expect(sixth.status == 429 && (sixth.header("retry-after").flatMap(Int.init) ?? 0) > 80_000, "\(sixth.text)")

            // Fills are limited per account, downloads and mails alike (6 an hour in this stack): the first
            // download and the four encrypted mails filled five (the unencrypted mail took the kept
            // PDF), a new version fills the sixth, the next new version waits.
            for (version, expected) in [(2, 200), (3, 429)] {
                let change = try JSONSerialization.data(withJSONObject: ["version": version, "answers": ["occupation": "Student \(version)"]])
                #expect(try await http.send("PATCH", "/v1/tax/interviews/2024", body: Array(change), headers: asMei).status == 200)
                let filled = try await http.send("GET", "/v1/tax/returns/2024/pdf", headers: asMei)
                #expect(filled.status == expected, "version \(version + 1): \(filled.status) \(filled.text.prefix(200))")
                if expected == 429 { #expect((filled.header("retry-after").flatMap(Int.init) ?? 0) > 3_000, "\(filled.headers)") }
            }

            // The limit is the account's: deleting the interview and answering again does not reset it,
            // and it is checked before anything is read or filled (429 here, not 409 for an unready return).
            #expect(try await http.send("DELETE", "/v1/tax/interviews/2024", headers: asMei).status == 200)
            let restarted = try JSONSerialization.data(withJSONObject: ["version": 0, "answers": ["email": "anyone@else.example"]])
            #expect(try await http.send("PATCH", "/v1/tax/interviews/2024", body: Array(restarted), headers: asMei).status == 200)
            let reset = try await http.post("/v1/tax/returns/2024/email", json: #"{"unencrypted":true}"#, headers: asMei)
            #expect(reset.status == 429, "\(reset.text)")

            // Deleting the account erases the returns it had mailed, though they went to the interview's address.
            let gone = try await http.send("DELETE", "/v1/me", body: Array(#"{"password":"correct horse battery staple mei"}"#.utf8), headers: asMei)
            #expect(gone.status == 200, "\(gone.text)")
            let mailedReturns = "SELECT count(*)::int FROM pdf_email.mails WHERE 'mei.forms@tcd.ie' = ANY(recipients)"
            #expect(await eventually(timeout: .seconds(20)) { try await TestDatabase.integer(mailedReturns, on: stack.databaseURL) == 0 }, "the mailed returns are gone")
            // tax-form hears of the deletion through auth's outbox too, in its own time.
            #expect(await eventually(timeout: .seconds(20)) {
                try await TestDatabase.integer("SELECT count(*)::int FROM tax_form.return_mails", on: stack.databaseURL) == 0
            }, "the record of its mailings is gone")

            // Nobody else gets it: another student has no such return.
            let conor = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: "conor@tcd.ie", username: "conor")
            #expect(try await http.send("GET", "/v1/tax/returns/2024/pdf", headers: ["Authorization": "Bearer \(conor.access)"]).status == 404)
            #expect(try await http.send("GET", "/v1/tax/returns/2024/pdf").status == 401)
        }
    }

    /// A student's whole interview for 2024: the deciding answers of an F-1 student here since
    /// `prior` years, one W-2, and what the forms show.
    static func student(days: [Int], prior: Int, w2: [String: Any], more: [String: Any]) -> [String: Any] {
        var answers: [String: Any] = [
            "citizen": false, "greenCard": "no", "visa": "F", "visa.changed": false, "visa.earlierYears": 0,
            "days.thisYear": days[0], "days.lastYear": days[1], "days.twoYearsAgo": days[2],
            "income.any": true, "income.other": false, "income.w2s": [w2], "filing.married": false, "filing.dependents": false,
            "tin": "912-70-4321", "occupation": "Student", "phone": "+1 617 555 0100",
            "address.us": ["line1": "1 Silber Way", "city": "Boston", "state": "MA", "postalCode": "02215", "country": "US"],
        ]
        for year in 1...6 { answers["visa.prior\(year)"] = year <= prior ? "F" : "none" }
        return answers.merging(more) { $1 }
    }

    /// Issue 41: a German student's wages exempt up to 9,000 (art. 20(4)), with the Social Security and
    /// Medicare tax her employer withheld and refused to pay back claimed on Forms 843 and 8316; a Chinese
    /// student who became a resident alien keeping art. 20(c) on Form 1040 with Form 8833. Through the
    /// preview and the downloaded PDF, read back as a viewer shows it.
    @Test func treatyStudentsAndAFicaClaimThroughThePreviewAndThePDF() async throws {
        let stack = try await AuthStack(taxForm: true, curve: true)
        try await stack.with { http in
            let lena = Self.student(days: [300, 300, 120], prior: 2, w2: [
                "employerName": "Campus Dining", "employerEIN": "12-3456789", "wagesCents": 1_500_000, "federalWithheldCents": 120_000,
                "socialSecurityWithheldCents": 62_000, "medicareWithheldCents": 14_500,
            ], more: [
                "name.first": "Lena", "name.last": "Vogel", "citizenship": "DE", "treaty.country": "DE", "treaty.claim": true,
                "treaty.arrivalDate": "2022-08-20", "treaty.priorMonths": 16, "fica.authorized": true, "fica.employer": "refused",
                "fica.statement": false, "fica.noStatement": "Payroll did not answer my emails of March 3 and March 20",
            ])
            let mei = Self.student(days: [366, 365, 365], prior: 5, w2: [
                "employerName": "Campus Dining", "employerEIN": "12-3456789", "wagesCents": 3_000_000, "federalWithheldCents": 250_000,
            ], more: [
                "name.first": "Mei", "name.last": "Chen", "days.januaryFirst": true, "closerConnection": false, "filing.claimedAsDependent": false,
                "treaty.country": "CN", "treaty.claim": true, "treaty.arrivalDate": "2018-08-20",
            ])

            // The preview, without an account.
            let german = try await TaxFormPreviewTests.preview(http, lena)
            #expect(TaxFormPreviewTests.lines(german, form: "1040-NR", ["1a", "1k", "15", "16", "35a"]) == [6_000, 9_000, 6_000, 603, 597], "\(german.text)")
            #expect(TaxFormPreviewTests.lines(german, form: "843", ["2"]) == [765] && TaxFormPreviewTests.lines(german, form: "8316", ["2"]) == [0], "\(german.text)")
            let chinese = try await TaxFormPreviewTests.preview(http, mei)
            #expect(chinese.json?["decision"]?["residency"] == "resident", "\(chinese.text)")
            #expect(TaxFormPreviewTests.lines(chinese, form: "1040-schedule-1", ["8z", "10"]) == [-5_000, -5_000], "\(chinese.text)")
            #expect(TaxFormPreviewTests.lines(chinese, form: "1040", ["1a", "8", "9", "15", "16"]) == [30_000, -5_000, 25_000, 10_400, 1_043])
            #expect(TaxFormPreviewTests.lines(chinese, form: "8833", ["6"]) == [5_000])

            // The PDFs, once each interview is finished (what is still open skipped).
            func pdf(_ answers: [String: Any], email: String, username: String) async throws -> PDFInspection {
                let user = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: email, username: username)
                let auth = ["Authorization": "Bearer \(user.access)"]
                let saved = try await http.send("PATCH", "/v1/tax/interviews/2024", body: Array(try JSONSerialization.data(withJSONObject: ["version": 0, "answers": answers])), headers: auth)
                guard case .array(let missing)? = saved.json?["assessment"]?["missing"] else { throw Unexpected(reply: saved.text) }
                let open = missing.compactMap { item -> String? in if case .string(let id)? = item["question"] { id } else { nil } }
                let skip = try JSONSerialization.data(withJSONObject: ["version": 1, "skip": open])
                #expect(try await http.send("PATCH", "/v1/tax/interviews/2024", body: Array(skip), headers: auth).status == 200)
                let download = try await http.send("GET", "/v1/tax/returns/2024/pdf", headers: auth)
                guard download.status == 200 else { throw Unexpected(reply: download.text) }
                return try await PDFInspection.of(Data(download.body))
            }
            let lenas = try await pdf(lena, email: "lena@tcd.ie", username: "lena")
            let text = lenas.text.joined(separator: "\n")
            for shown in ["Form 1040-NR", "9,000", "Germany, article 20(4), 16 months claimed before 2024, 9,000", "no more than 4 years",
                          "Form 843 Claim for Refund", "$765.00", "Employment", "3121(b)(19)", "Form 8316", "Payroll did not answer my emails",
                          "Campus Dining (EIN 12-3456789)", "Ogden, UT 84201-0038", "A copy of your visa"] {
                #expect(text.contains(shown), "\(shown) is printed")
            }
            #expect(lenas.pages == 6, "1040-NR, Schedule OI, 8843, 843, 8316 and the instructions: \(lenas.pages)")

            let meis = try await pdf(mei, email: "mei@tcd.ie", username: "mei")
            #expect(meis.fields["topmostSubform[0].Page1[0].Line4a-11_ReadOrder[0].f1_53[0]"] == "(5,000)", "1040 line 8")
            #expect(meis.fields["form1[0].Page1[0].f1_36[0]"] == "(5,000)" && meis.fields["form1[0].Page1[0].Line8z_ReadOrder[0].f1_34[0]"] == "Exempt income, China, article 20(c)")
            let meiText = meis.text.joined(separator: "\n")
            for shown in ["Form 8833 Treaty-Based Return Position Disclosure", "20(c); Protocol of April 30, 1984, paragraph 2", "Section 61(a)", "Wages of $5,000 exempt under article 20(c)"] {
                #expect(meiText.contains(shown), "\(shown) is printed")
            }
        }
    }

    struct Unexpected: Error { let reply: String }

    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    static func text(_ value: JSONValue?) -> String? {
        if case .string(let text)? = value { text } else { nil }
    }
}
}
