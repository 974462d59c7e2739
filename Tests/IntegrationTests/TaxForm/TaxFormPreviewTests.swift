import Envelope
import Foundation
import ServiceCatalog
import Testing
import TestSupport

/// `POST /v1/tax/returns/preview` and `GET /v1/tax/questions` through the gateway, with a `tax-form`
/// process behind it, as a client without an account uses them.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(3))) struct TaxFormPreviewTests {
    static func withStack(_ body: (HTTPTestClient) async throws -> Void) async throws {
        let broker = try BusHarness.broker()
        let (gateway, address) = try GatewayHarness.gateway(broker.endpoint, services: ServiceCatalog.services)
        let taxForm = try ChildProcess(product: "tax-form", environment: [
            "BROKER_ENDPOINT": broker.endpoint, "HEARTBEAT_INTERVAL": "250", "DATABASE_URL": try await TestDatabase.freshDatabase(),
            "TAX_FORM_KEY": Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(),
        ])
        let probe = try BusHarness.client(broker.endpoint)
        try await BusHarness.with([broker, gateway, probe]) {
            #expect(await BusHarness.waitForService("tax-form", client: probe, timeout: .seconds(30)), "\(taxForm.output)")
            try await body(try await address.client())
        }
    }

    /// The deciding answers of a student on `visa` with a history of `prior` statuses (last year first).
    static func student(_ visa: String, prior: [String], days: [Int], income: Bool = true) -> [String: Any] {
        var answers: [String: Any] = [
            "citizen": false, "greenCard": "no", "visa": visa, "visa.changed": false, "visa.earlierYears": 0,
            "days.thisYear": days[0], "days.lastYear": days[1], "days.twoYearsAgo": days[2], "income.any": income,
        ]
        for year in 1...6 { answers["visa.prior\(year)"] = year <= prior.count ? prior[year - 1] : "none" }
        return answers
    }

    static func w2(wages: Int, withheld: Int, stateWithheld: Int = 0, box12: String? = nil) -> [String: Any] {
        var w2: [String: Any] = [
            "employerName": "Campus Dining", "employerEIN": "12-3456789", "wagesCents": wages, "federalWithheldCents": withheld,
            "states": [["state": "MA", "wagesCents": wages, "withheldCents": stateWithheld]],
        ]
        if let box12 { w2["box12"] = [["code": box12, "amountCents": 5_000]] }
        return w2
    }

    static func preview(_ http: HTTPTestClient, _ answers: [String: Any], year: Int = 2024) async throws -> HTTPTestClient.Reply {
        let body = try JSONSerialization.data(withJSONObject: ["taxYear": year, "answers": answers])
        return try await http.post("/v1/tax/returns/preview", json: String(decoding: body, as: UTF8.self))
    }

    static func first(_ value: JSONValue?) -> JSONValue? {
        if case .array(let items)? = value { items.first } else { nil }
    }

    static func lines(_ reply: HTTPTestClient.Reply, form: String, _ numbers: [String]) -> [JSONValue?] {
        guard case .array(let forms)? = reply.json?["forms"], let found = forms.first(where: { $0["form"] == .string(form) }),
              case .array(let lines)? = found["lines"] else { return [] }
        return numbers.map { number in lines.first { $0["line"] == .string(number) }?["dollars"] }
    }

    /// Free-form answers are bounded at the gateway: five answers nested 500 deep (a 5 KB body, a
    /// second of CPU each in the old decoder) are refused at once, naming each, and an answer larger
    /// than any real one too; tax-form keeps answering.
    @Test func answersNestedDeepOrGrownLargeAreRefusedAtTheGateway() async throws {
        try await Self.withStack { http in
            let deep = String(repeating: "[", count: 500) + "true" + String(repeating: "]", count: 500)
            let body = #"{"taxYear":2024,"answers":{"# + (0..<5).map { #""q\#($0)":\#(deep)"# }.joined(separator: ",") + "}}"
            let refused = try await http.post("/v1/tax/returns/preview", json: body)
            #expect(refused.status == 400, "\(refused.text.prefix(300))")
            guard case .array(let fields)? = refused.json?["fields"] else { Issue.record("no fields: \(refused.text.prefix(300))"); return }
            #expect(fields.map { $0["message"] } == Array(repeating: "must nest at most 5 levels", count: 5), "\(fields)")
            let large = #"{"taxYear":2024,"answers":{"name.first":""# + String(repeating: "x", count: 40_000) + #""}}"#
            let tooLarge = try await http.post("/v1/tax/returns/preview", json: large)
            #expect(tooLarge.status == 400 && Self.first(tooLarge.json?["fields"])?["field"] == "answers.name.first", "\(tooLarge.text.prefix(300))")
            let fine = try await http.post("/v1/tax/returns/preview", json: #"{"taxYear":2024,"answers":{"citizen":false}}"#)
            #expect(fine.status == 200, "\(fine.text.prefix(300))")
        }
    }

    @Test func residentAndNonresidentReturnsLineByLine() async throws {
        try await Self.withStack { http in
            // A sixth-year F-1 student, here on January 1: a resident, Form 1040.
            var resident = Self.student("F", prior: ["F", "F", "F", "F", "F"], days: [366, 365, 365])
            resident["days.januaryFirst"] = true
            resident["closerConnection"] = false
            resident["income.w2s"] = [Self.w2(wages: 2_000_040, withheld: 150_000), Self.w2(wages: 1_000_010, withheld: 100_000)]
            resident["income.interest"] = 12_345
            resident["income.scholarship"] = 100_000
            let filed = try await Self.preview(http, resident)
            #expect(filed.status == 200, "\(filed.text)")
            #expect(filed.json?["decision"]?["residency"] == "resident" && filed.json?["decision"]?["forms"] == ["1040"])
            #expect(Self.lines(filed, form: "1040", ["1a", "2b", "8", "9", "12", "15", "16", "25a", "35a"])
                == [30_001, 123, 1_000, 31_124, 14_600, 16_524, 1_751, 2_500, 749])
            #expect(filed.json?["refundCents"] == 74_900)

            // A third-year F-1 student from China: a nonresident, the treaty exempts 5,000 of wages.
            var china = Self.student("F", prior: ["F", "F"], days: [300, 300, 120])
            china["income.w2s"] = [Self.w2(wages: 2_000_000, withheld: 180_000, stateWithheld: 60_000)]
            china["treaty.country"] = "CN"
            china["treaty.claim"] = true
            let nonresident = try await Self.preview(http, china)
            #expect(nonresident.json?["decision"]?["forms"] == ["1040-NR", "8843"], "\(nonresident.text)")
            #expect(Self.lines(nonresident, form: "1040-NR", ["1a", "1k", "12", "15", "16", "35a"]) == [15_000, 5_000, 600, 14_400, 1_499, 301])
        }
    }

    @Test func formsDecisionsAndStops() async throws {
        try await Self.withStack { http in
            let alone = try await Self.preview(http, Self.student("F", prior: [], days: [120, 0, 0], income: false))
            #expect(alone.json?["decision"]?["forms"] == ["8843"] && alone.json?["forms"] == [], "\(alone.text)")
            #expect(Self.first(alone.json?["next"])?["id"] == "visa.entryDate")

            let scholar = try await Self.preview(http, Self.student("J-scholar", prior: [], days: [300, 0, 0]))
            #expect(scholar.json?["decision"]?["forms"] == ["1040-NR", "8843"], "\(scholar.text)")
            guard case .array(let reasons)? = scholar.json?["decision"]?["reasons"] else { Issue.record("no reasons"); return }
            #expect(reasons.contains { $0["rule"] == "exempt-teacher" })

            var changed = Self.student("H-1B", prior: ["F", "F"], days: [365, 365, 365])
            changed["visa.changed"] = true
            changed["visa.before"] = "F"
            changed["days.afterChange"] = 200
            changed["closerConnection"] = false
            let dual = try await Self.preview(http, changed)
            #expect(dual.status == 200 && dual.json?["stop"]?["rule"] == "dual-status" && dual.json?["decision"]?["residency"] == "unsupported", "\(dual.text)")
            #expect(dual.json?["next"] == [], "nothing more is asked")

            var coded = Self.student("F", prior: ["F"], days: [300, 100, 0])
            coded["income.w2s"] = [Self.w2(wages: 1_000_000, withheld: 50_000, box12: "A")]
            let stopped = try await Self.preview(http, coded)
            #expect(stopped.json?["stop"]?["rule"] == "unsupported-w2-code" && stopped.json?["forms"] == [], "\(stopped.text)")
        }
    }

    @Test func residencyEdgesAndTheTaxTableThroughTheGateway() async throws {
        try await Self.withStack { http in
            // 153 + 90/3 = 183 weighted days meet the test; 153 + 89/3 + 1/6 = 182.83 do not (not rounded).
            for (days, residency) in [([153, 90, 0], "resident"), ([153, 89, 1], "nonresident")] {
                var worker = Self.student("H-1B", prior: [], days: days)
                worker["days.januaryFirst"] = true
                worker["closerConnection"] = false
                worker["firstYearChoice"] = false
                let reply = try await Self.preview(http, worker)
                #expect(reply.json?["decision"]?["residency"] == .string(residency), "\(days): \(reply.text)")
            }
            // An F-1 student is exempt in the fifth calendar year in F status and counts days in the sixth.
            for (prior, residency) in [(["F", "F", "F", "F"], "nonresident"), (["F", "F", "F", "F", "F"], "resident")] {
                var student = Self.student("F", prior: prior, days: [365, 365, 365])
                student["days.januaryFirst"] = true
                student["closerConnection"] = false
                let reply = try await Self.preview(http, student)
                #expect(reply.json?["decision"]?["residency"] == .string(residency), "year \(prior.count + 1): \(reply.text)")
            }
            // Line 16 by the Tax Table: the reference's (Direct File's) TY2024 cases, a single resident's
            // wages being taxable income plus the 14,600 standard deduction.
            for (taxable, tax) in [(20_000, 2_171), (57_050, 7_610), (2_975, 299)] {
                var resident = Self.student("F", prior: ["F", "F", "F", "F", "F"], days: [366, 365, 365])
                resident["days.januaryFirst"] = true
                resident["closerConnection"] = false
                resident["income.w2s"] = [Self.w2(wages: (taxable + 14_600) * 100, withheld: 0)]
                let reply = try await Self.preview(http, resident)
                #expect(Self.lines(reply, form: "1040", ["15", "16"]) == [.number(Double(taxable)), .number(Double(tax))], "\(reply.text)")
            }
        }
    }

    @Test func badAnswersAreRefusedNamingTheFieldAndTheQuestionsAreListed() async throws {
        try await Self.withStack { http in
            let bad = try await Self.preview(http, ["days.thisYear": 400, "tin": "000-12-3456", "visa": "B-2"], year: 2019)
            #expect(bad.status == 400 && bad.header("content-type") == "application/problem+json", "\(bad.text)")
            guard case .array(let fields)? = bad.json?["fields"] else { Issue.record("no fields: \(bad.text)"); return }
            #expect(fields.compactMap { $0["field"] } == ["taxYear", "answers.days.thisYear", "answers.tin", "answers.visa"])
            let fraction = try await http.post("/v1/tax/returns/preview", json: #"{"taxYear":2024,"answers":{"income.interest":12.5}}"#)
            #expect(fraction.status == 400, "\(fraction.text)")

            let questions = try await http.get("/v1/tax/questions?taxYear=2025")
            #expect(questions.status == 200 && questions.json?["taxYears"] == [2023, 2024, 2025, 2026], "\(questions.text)")
            #expect(Self.first(questions.json?["questions"])?["id"] == "citizen")
            #expect(try await http.get("/v1/tax/questions?taxYear=2019").status == 400)
        }
    }

    @Test func suggestionsFillAnAutocompleteAndTheirAnswersAreAccepted() async throws {
        try await Self.withStack { http in
            func items(_ path: String) async throws -> [JSONValue] {
                let reply = try await http.get(path)
                guard reply.status == 200, case .array(let items)? = reply.json?["items"] else { Issue.record("\(path): \(reply.text)"); return [] }
                return items
            }
            // A college by an alias, in one state, with what the school questions take.
            let bu = try await items("/v1/tax/suggestions/institutions?prefix=bu&state=ma&limit=3")
            #expect(bu.first?["name"] == "Boston University" && bu.first?["phone"] == "+16173532000", "\(bu)")
            #expect(bu.allSatisfy { $0["address"]?["state"] == "MA" })
            let ucla = try await items("/v1/tax/suggestions/institutions?prefix=california%20los")
            #expect(ucla.contains { $0["name"] == "University of California-Los Angeles" }, "a word of the name: \(ucla)")
            let answers: [String: Any] = [
                "school.name": "Boston University", "school.phone": "+16173532000",
                "school.address": try JSONSerialization.jsonObject(with: JSONEncoder().encode(bu.first?["address"])),
            ]
            #expect(try await Self.preview(http, answers).status == 200, "a suggestion is a valid answer")

            // Countries say which student treaty benefit the service applies; accents and case do not matter.
            let china = try await items("/v1/tax/suggestions/countries?prefix=Chin&taxYear=2024")
            #expect(china.first?["code"] == "CN" && china.first?["treaty"]?["article"] == "20(c)", "\(china)")
            #expect(try await items("/v1/tax/suggestions/countries?prefix=ind").first?["treaty"]?["benefit"] == "The standard deduction on Form 1040-NR")
            #expect(try await items("/v1/tax/suggestions/countries?prefix=cote").first?["code"] == "CI")
            #expect(try await items("/v1/tax/suggestions/countries?prefix=germ").first?["treaty"]?["benefit"]
                == "Wages up to $9,000 a year are exempt (Form 1040-NR line 1k), for 4 years from arrival")
            #expect(try await items("/v1/tax/suggestions/countries?prefix=brazil").first?["treaty"] == nil, "no student article")
            #expect(try await items("/v1/tax/suggestions/states?prefix=new").compactMap { $0["code"] } == ["NH", "NJ", "NM", "NY"])
            #expect(try await items("/v1/tax/suggestions/visa-types?prefix=j").compactMap { $0["code"] } == ["J-student", "J-scholar"])

            // Pages, and refusals naming the field.
            let page = try await http.get("/v1/tax/suggestions/countries?limit=100&after=200")
            let firstPage = try await http.get("/v1/tax/suggestions/countries?limit=100")
            #expect(firstPage.json?["nextAfter"] == 100 && page.json?["nextAfter"] == nil, "\(firstPage.json?["nextAfter"] as Any) \(page.text)")
            for (path, field) in [
                ("/v1/tax/suggestions/planets", "list"), ("/v1/tax/suggestions/countries?state=MA", "state"),
                ("/v1/tax/suggestions/institutions?state=ZZ", "state"), ("/v1/tax/suggestions/countries?taxYear=2019", "taxYear"),
                ("/v1/tax/suggestions/states?prefix=" + String(repeating: "a", count: 101), "prefix"),
            ] {
                let refused = try await http.get(path)
                #expect(refused.status == 400 && Self.first(refused.json?["fields"])?["field"] == .string(field), "\(path): \(refused.text)")
            }
        }
    }
}
}
