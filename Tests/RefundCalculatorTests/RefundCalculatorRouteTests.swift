import Envelope
import Foundation
import RefundCalculatorService
import ServiceKit
import Testing
import TestSupport

/// The estimator's anonymous routes through the gateway's routing, in process (`InProcessStack`):
/// no broker, socket or child process, the same checks, encoding and replies as over the bus.
@Suite(.timeLimit(.minutes(2))) struct RefundCalculatorRouteTests {
    /// The day the refund tests are written for: the refund window is 2022 to 2026.
    static let today = RFC3339.date(from: "2026-11-21T14:00:00Z")!

    static func lines(_ reply: HTTPTestClient.Reply, _ kind: String) -> [JSONValue] {
        guard case .array(let lines)? = reply.json?["lines"] else { return [] }
        return lines.filter { $0["kind"] == .string(kind) }.compactMap { $0["amountCents"] }
    }

    static func fields(_ reply: HTTPTestClient.Reply) -> [String] {
        guard case .array(let items)? = reply.json?["fields"] else { return [] }
        return items.compactMap { if case .string(let field)? = $0["field"] { field } else { nil } }
    }

    @Test func estimatesHelpAndRulesNeedNoAccountAndBadAnswersNameTheField() async throws {
        try await InProcessStack.with([.refundCalculator], clock: .fixed(Self.today)) { http in
            // The second worked example (the rest: theEstimateChecksHoldThroughTheGateway).
            let second = try await http.post("/v1/refunds/estimate", json: #"{"taxYear":2024,"status":"single","salaryCents":4320000,"taxPaidCents":550000}"#)
            #expect(second.status == 200 && second.json?["refundCents"] == 370_00 && second.json?["currency"] == "EUR", "\(second.text)")
            #expect(Self.lines(second, "band") == [8_400_00, 480_00], "€42,000 at 20%, €1,200 at 40%: \(second.text)")

            // Answers that add nothing say why.
            let union = try await http.post("/v1/refunds/estimate", json: #"{"taxYear":2024,"salaryCents":3000000,"tradeUnionMember":true,"home":{"serviceChargesCents":16000}}"#)
            guard case .array(let warnings)? = union.json?["warnings"] else { Issue.record("no warnings: \(union.text)"); return }
            #expect(warnings.compactMap { $0["field"] } == ["data.tradeUnionMember", "data.home.serviceChargesCents"])

            // Bad answers: 400 problem+json naming each field, nothing else: first every answer the
            // schema forbids (the gateway, before the bus), then every answer the rules refuse.
            let bad = try await http.post(
                "/v1/refunds/estimate", json: #"{"taxYear":2019,"salaryCents":-1,"profession":"astronaut","spouse":{"taxPaidCents":-5}}"#)
            #expect(bad.status == 400 && bad.headers["content-type"] == "application/problem+json", "\(bad.text)")
            #expect(Self.fields(bad) == ["salaryCents", "spouse.taxPaidCents"], "\(bad.text)")
            let outsideTheRules = try await http.post(
                "/v1/refunds/estimate", json: #"{"taxYear":2019,"salaryCents":1,"profession":"astronaut","spouse":{"taxPaidCents":5}}"#)
            #expect(Self.fields(outsideTheRules) == ["taxYear", "profession"], "\(outsideTheRules.text)")
            let notANumber = try await http.post("/v1/refunds/estimate", json: #"{"salaryCents":"lots"}"#)
            #expect(notANumber.status == 400 && Self.fields(notANumber) == ["salaryCents"], "\(notANumber.text)")

            // The rules version and the window; help with the year's own figures.
            let rules = try await http.get("/v1/refunds/rules")
            #expect(rules.status == 200 && rules.json?["version"] == second.json?["rulesVersion"], "\(rules.text)")
            let year = RuleBook.taxYear(of: Self.today)
            #expect(rules.json?["taxYears"] == .array((year - 4...year).map { .number(Double($0)) }))
            let help2023 = try await http.get("/v1/refunds/help?taxYear=2023")
            let help2024 = try await http.get("/v1/refunds/help?taxYear=2024")
            func help(_ reply: HTTPTestClient.Reply, _ field: String) -> String? {
                guard case .array(let answers)? = reply.json?["answers"] else { return nil }
                if case .string(let text)? = answers.first(where: { $0["field"] == .string(field) })?["help"] { return text }
                return nil
            }
            #expect(help(help2023, "home.rentPaidCents")?.contains("up to €500") == true, "\(help2023.text)")
            #expect(help(help2024, "home.rentPaidCents")?.contains("up to €1,000") == true, "\(help2024.text)")
            // The mortgage credit's help follows the year: none in 2022, 20% of the rise up to €1,250 in 2024.
            let help2022 = try await http.get("/v1/refunds/help?taxYear=2022")
            #expect(help(help2022, "home.mortgage.interestPaidCents")?.contains("no Mortgage Interest Tax Credit for 2022") == true, "\(help2022.text)")
            #expect(help(help2024, "home.hasMortgage")?.contains("up to €1,250") == true, "\(help2024.text)")
            let outside = try await http.get("/v1/refunds/help?taxYear=2015")
            #expect(outside.status == 400 && Self.fields(outside) == ["taxYear"], "\(outside.text)")

            // Every route is documented.
            let document = try await http.get("/openapi.json")
            for path in ["/v1/refunds/estimate", "/v1/refunds/rules", "/v1/refunds/help", "/v1/refunds/scenarios", "/v1/refunds/scenarios/{id}",
                         "/v1/refunds/contact-requests"] {
                #expect(document.json?["paths"]?[path] != nil, "\(path) is not in /openapi.json")
            }
        }
    }

}
