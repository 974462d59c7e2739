import RefundCalculatorContract
import Contracts
import Envelope
import Foundation
import RefundCalculatorService
import Testing
import TestSupport

/// The refund estimator as its clients use it: over HTTP through the gateway, to a
/// `refund-calculator` process on a broker and a real database, with auth for saved scenarios and
/// pdf-email delivering contact requests to a real SMTP server.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(10))) struct RefundCalculatorHTTPTests {
    typealias Journey = ServiceStackTests.AuthJourneyTests

    static func json(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func lines(_ reply: HTTPTestClient.Reply, _ kind: String) -> [JSONValue] {
        guard case .array(let lines)? = reply.json?["lines"] else { return [] }
        return lines.filter { $0["kind"] == .string(kind) }.compactMap { $0["amountCents"] }
    }

    /// The estimator's checks (worked examples, properties, each credit per year, refusals), each
    /// estimate a POST to the gateway: the same checks the unit tests run in process.
    @Test func theEstimateChecksHoldThroughTheGateway() async throws {
        let stack = try await AuthStack(refundCalculator: [:])
        try await stack.with { http in
            let codec = EnvelopeCodec()
            let rules = try RuleBook.bundled()
            let checks = RefundEstimateChecks(rules: rules) { scenario in
                let reply = try await http.post("/v1/refunds/estimate", json: String(decoding: try codec.encode(scenario), as: UTF8.self))
                if reply.status == 200 { return try codec.decode(RefundCalculator.Estimate.self, from: Array(reply.text.utf8)) }
                // A problem names fields as the client sent them; the checks name them under `data`.
                let fields = Journey.fields(reply).map { OperationError.FieldIssue(field: "data.\($0)", message: "") }
                throw OperationError(reply.status == 400 ? .invalid : .internal, reply.text, fields: fields)
            }
            let today = AuthStack.today
            let window = try #require(rules.window(on: today))
            #expect(try await checks.workedExamples() == [])
            #expect(try await checks.partialInput(today: today) == [])
            #expect(try await checks.marriedTwoIncomeIncreaseIsCappedByTheLowerIncome() == [])
            #expect(try await checks.homeCarerTapers() == [])
            for year in window { #expect(try await checks.eachCreditAndReliefOnItsOwn(year: year) == []) }
            for year in window { #expect(try await checks.mortgageInterestCreditEachYear(year: year) == []) }
            #expect(try await checks.mortgageInterestEdges() == [])
            #expect(try await checks.mortgageCreditOnlyDownToZeroAndOncePerHome() == [])
            #expect(try await checks.partYearUnemployment() == [])
            #expect(try await checks.moreTaxPaidMedicalOrInterestNeverLowersTheRefund(count: 100, years: window) == [])
            #expect(await checks.badAnswersAreInvalidNamingTheField(window: window) == [])
        }
    }

    @Test func savedScenariosAreTheOwnersAloneAndGoWithTheAccount() async throws {
        let stack = try await AuthStack(refundCalculator: ["REFUND_SCENARIOS_PER_ACCOUNT": "3"])
        try await stack.with { http in
            let aoife = try await Journey.signedUp(stack, http, email: "aoife@tcd.ie", username: "aoife", app: "refunds")
            let conor = try await Journey.signedUp(stack, http, email: "conor@tcd.ie", username: "conor", app: "refunds")
            let asAoife = ["Authorization": "Bearer \(aoife.access)"], asConor = ["Authorization": "Bearer \(conor.access)"]
            let answers = #"{"taxYear":2024,"status":"single","salaryCents":4320000,"taxPaidCents":550000}"#

            #expect(try await http.send("POST", "/v1/refunds/scenarios", body: Self.json(#"{"name":"x","scenario":{}}"#)).status == 401)
            let save = { @Sendable (headers: [String: String]) in
                try await http.send("POST", "/v1/refunds/scenarios", body: Self.json(#"{"name":"  2024 job  ","scenario":\#(answers)}"#), headers: headers)
            }
            let retried = asAoife.merging(["Idempotency-Key": "save-2024"]) { $1 }
            let saved = try await save(retried)
            #expect(saved.status == 201 && saved.json?["name"] == "2024 job" && saved.json?["estimate"]?["refundCents"] == 370_00, "\(saved.text)")
            let id = try #require(Journey.string(saved, "id"))
            // A retry (same Idempotency-Key) saves nothing more and answers the same scenario.
            #expect(try await Journey.string(save(retried), "id") == id)
            // Another account's request under the same key is its own.
            #expect(try await Journey.string(save(asConor.merging(["Idempotency-Key": "save-2024"]) { $1 }), "id") != id)

            // Someone else's scenario does not exist for them, whatever they try.
            #expect(try await http.send("GET", "/v1/refunds/scenarios/\(id)", headers: asConor).status == 404)
            #expect(try await http.send("PUT", "/v1/refunds/scenarios/\(id)", body: Self.json(#"{"name":"mine","scenario":{}}"#), headers: asConor).status == 404)
            #expect(try await http.send("DELETE", "/v1/refunds/scenarios/\(id)", headers: asConor).status == 404)
            let conorsList = try await http.send("GET", "/v1/refunds/scenarios", headers: asConor)
            guard case .array(let conors)? = conorsList.json?["scenarios"] else { Issue.record("no list: \(conorsList.text)"); return }
            #expect(conors.count == 1 && conors.first?["id"] != .string(id), "only Conor's own")

            // Load, update, list in pages, delete.
            let loaded = try await http.send("GET", "/v1/refunds/scenarios/\(id)", headers: asAoife)
            #expect(loaded.status == 200 && loaded.json?["scenario"]?["salaryCents"] == 4_320_000, "\(loaded.text)")
            let raised = answers.replacingOccurrences(of: "550000", with: "600000")
            let updated = try await http.send("PUT", "/v1/refunds/scenarios/\(id)", body: Self.json(#"{"name":"2024, more tax","scenario":\#(raised)}"#), headers: asAoife)
            #expect(updated.status == 200 && updated.json?["name"] == "2024, more tax" && updated.json?["estimate"]?["refundCents"] == 870_00, "\(updated.text)")
            let badUpdate = try await http.send("PUT", "/v1/refunds/scenarios/\(id)", body: Self.json(#"{"name":"","scenario":{"taxYear":1999}}"#), headers: asAoife)
            #expect(badUpdate.status == 400 && Journey.fields(badUpdate) == ["name"], "the schema's refusal first: \(badUpdate.text)")
            let badYear = try await http.send("PUT", "/v1/refunds/scenarios/\(id)", body: Self.json(#"{"name":"x","scenario":{"taxYear":1999}}"#), headers: asAoife)
            #expect(badYear.status == 400 && Journey.fields(badYear) == ["scenario.taxYear"], "\(badYear.text)")
            for name in ["second", "third"] {
                #expect(try await http.send("POST", "/v1/refunds/scenarios", body: Self.json(#"{"name":"\#(name)","scenario":{}}"#), headers: asAoife).status == 201)
            }
            let full = try await http.send("POST", "/v1/refunds/scenarios", body: Self.json(#"{"name":"fourth","scenario":{}}"#), headers: asAoife)
            #expect(full.status == 409, "REFUND_SCENARIOS_PER_ACCOUNT is 3: \(full.text)")
            let page = try await http.send("GET", "/v1/refunds/scenarios?limit=2", headers: asAoife)
            guard case .array(let first)? = page.json?["scenarios"], case .number(let next)? = page.json?["nextAfter"] else {
                Issue.record("no page: \(page.text)")
                return
            }
            #expect(first.compactMap { $0["name"] } == ["third", "second"])
            let rest = try await http.send("GET", "/v1/refunds/scenarios?limit=2&after=\(Int(next))", headers: asAoife)
            guard case .array(let second)? = rest.json?["scenarios"] else { Issue.record("no second page: \(rest.text)"); return }
            #expect(second.compactMap { $0["name"] } == ["2024, more tax"] && rest.json?["nextAfter"] == nil, "\(rest.text)")
            #expect(try await http.send("DELETE", "/v1/refunds/scenarios/\(id)", headers: asAoife).json?["deleted"] == true)
            #expect(try await http.send("GET", "/v1/refunds/scenarios/\(id)", headers: asAoife).status == 404)

            // Deleting the account deletes its scenarios and the contact requests from its address
            // (auth tells the service through its outbox).
            let contact = try await http.post("/v1/refunds/contact-requests", json: #"{"name":"Aoife","email":"aoife@tcd.ie","phone":"087 555 0100","preferredTime":"anytime","scenario":{}}"#)
            #expect(contact.status == 202, "\(contact.text)")
            let remaining = "SELECT count(*)::int FROM refund_calculator.scenarios"
            let contacts = "SELECT count(*)::int FROM refund_calculator.contact_requests"
            #expect(try await TestDatabase.integer(remaining, on: stack.databaseURL) == 3, "Aoife's two and Conor's one")
            #expect(try await TestDatabase.integer(contacts, on: stack.databaseURL) == 1)
            let deleted = try await http.send(
                "DELETE", "/v1/me", body: Self.json(#"{"password":"correct horse battery staple aoife"}"#), headers: asAoife)
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(await eventually(timeout: .seconds(20)) { try await TestDatabase.integer(remaining, on: stack.databaseURL) == 1 }, "Conor's stays")
            #expect(try await TestDatabase.integer(contacts, on: stack.databaseURL) == 0)
            // The erase ran; the deleted account's access token, though not expired, saves nothing.
            let late = try await save(asAoife)
            #expect(late.status == 401, "\(late.text)")
            #expect(try await TestDatabase.integer(remaining, on: stack.databaseURL) == 1)
        }
    }

    @Test func aContactRequestIsStoredMailedToTheCompanyAndConfirmedToTheUser() async throws {
        let stack = try await AuthStack(refundCalculator: ["REFUND_CONTACTS_PER_EMAIL": "2", "REFUND_CONTACTS_PER_IP": "3"])
        try await stack.with { http in
            let request = #"{"name":"Aoife Byrne","email":"Aoife@Example.ie","phone":"+353 87 555 0100","preferredTime":"morning","scenario":{"taxYear":2024,"status":"single","salaryCents":4320000,"taxPaidCents":550000}}"#
            let made = try await http.post("/v1/refunds/contact-requests", json: request)
            #expect(made.status == 202 && made.json?["status"] == "received" && made.json?["estimate"]?["refundCents"] == 370_00, "\(made.text)")
            let id = try #require(Journey.string(made, "id"))
            #expect(try await TestDatabase.integer(
                "SELECT count(*)::int FROM refund_calculator.contact_requests WHERE id = '\(id)' AND email = 'aoife@example.ie' AND refund_cents = 37000",
                on: stack.databaseURL) == 1)

            // Both mails arrive over SMTP: the company's, answerable to the user, and the confirmation.
            #expect(await eventually(timeout: .seconds(20)) {
                try stack.mails(to: AuthStack.refundCompany).count == 1 && stack.mails(to: "aoife@example.ie").count == 1
            })
            let company = try await SMTPSink.inspect(try #require(stack.mails(to: AuthStack.refundCompany).first))
            #expect(company["subject"] as? String == "Refund contact request from Aoife Byrne")
            #expect((company["replyTo"] as? String)?.contains("aoife@example.ie") == true, "\(company)")
            let companyText = company["text"] as? String ?? ""
            #expect(companyText.contains("+353 87 555 0100") && companyText.contains("in the morning"), "\(companyText)")
            #expect(companyText.contains("Estimated refund for 2024: €370") && companyText.contains("40% on €1,200: €480"), "\(companyText)")
            let confirmation = try await SMTPSink.inspect(try #require(stack.mails(to: "aoife@example.ie").first))
            #expect(confirmation["subject"] as? String == "Your tax refund contact request")
            #expect((confirmation["text"] as? String)?.contains("Estimated refund for 2024: €370") == true)

            // A retry of the same request (same Idempotency-Key) is answered again, not sent again.
            let key = ["Idempotency-Key": "contact-retry-1"]
            let once = try await http.post("/v1/refunds/contact-requests", json: request, headers: key)
            let again = try await http.post("/v1/refunds/contact-requests", json: request, headers: key)
            #expect(once.status == 202 && again.status == 202 && Journey.string(once, "id") == Journey.string(again, "id"), "\(once.text) \(again.text)")
            // Two a day per address here: the third is refused until the first leaves the day.
            let third = try await http.post("/v1/refunds/contact-requests", json: request)
            #expect(third.status == 429 && Int(third.headers["retry-after"] ?? "") ?? 0 > 86_000, "\(third.text)")
            #expect(try await TestDatabase.integer("SELECT count(*)::int FROM refund_calculator.contact_requests", on: stack.databaseURL) == 2)
            // Three a day per client IP here: another address from this network gets one more, then
            // the network waits; another network does not.
            let other = { @Sendable (email: String, ip: String?) in
                try await http.post(
                    "/v1/refunds/contact-requests", JSONValue.parse(Array(request.replacingOccurrences(of: "Aoife@Example.ie", with: email).utf8)), from: ip)
            }
            #expect(try await other("conor@example.ie", nil).status == 202)
            let network = try await other("niamh@example.ie", nil)
            #expect(network.status == 429 && network.json?["detail"] == "too many contact requests from this network today; try again later",
                    "\(network.text)")
            #expect(try await other("niamh@example.ie", "198.51.100.7").status == 202)
            // An IPv6 subscriber has a whole /64: its addresses count as one network.
            for (index, ip) in ["2001:db8:1:2::10", "2001:db8:1:2::20", "2001:db8:1:2:ffff::1"].enumerated() {
                #expect(try await other("v6-\(index)@example.ie", ip).status == 202)
            }
            let sameNetwork = try await other("v6-3@example.ie", "2001:db8:1:2::99")
            #expect(sameNetwork.status == 429, "a fourth address in the same /64: \(sameNetwork.text)")
            #expect(try await other("v6-4@example.ie", "2001:db8:1:3::1").status == 202, "the next /64 is another network")

            let bad = try await http.post(
                "/v1/refunds/contact-requests",
                json: #"{"name":"","email":"not-an-address","phone":"call me","preferredTime":"midnight","scenario":{}}"#)
            #expect(bad.status == 400, "\(bad.text)")
            #expect(Journey.fields(bad) == ["name", "phone", "preferredTime"], "the gateway names every field the schema forbids: \(bad.text)")
            let badValues = try await http.post(
                "/v1/refunds/contact-requests",
                json: #"{"name":"","email":"not-an-address","phone":"call me","preferredTime":"evening","scenario":{"salaryCents":-1}}"#)
            #expect(Journey.fields(badValues) == ["name", "phone", "scenario.salaryCents"], "\(badValues.text)")
            let badAddress = try await http.post(
                "/v1/refunds/contact-requests",
                json: #"{"name":"Ana","email":"not-an-address","phone":"087 555 0100","preferredTime":"evening","scenario":{"taxYear":1999}}"#)
            #expect(Journey.fields(badAddress) == ["email", "scenario.taxYear"], "then the service names the rest: \(badAddress.text)")
            #expect(await eventually(timeout: .seconds(10)) { try stack.mails(to: AuthStack.refundCompany).count == 8 })
        }
    }
}
}
