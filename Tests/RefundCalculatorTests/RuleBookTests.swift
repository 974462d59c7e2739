import RefundCalculatorContract
import Contracts
import Foundation
import RefundCalculatorService
import Testing

/// The data beside the rules: help for every field in every year, and a version that follows the data.
@Suite(.timeLimit(.minutes(2))) struct RuleBookTests {
    static let book = try! RuleBook.bundled()

    /// Every answer a scenario can hold, as a dotted path.
    static let scenarioFields: [String] = {
        let full = RefundCalculator.Scenario(
            taxYear: 2024, status: .single, dateOfBirth: "1990-01-01", dependentChildren: 0, salaryCents: 1, taxPaidCents: 1, profession: "none",
            tradeUnionMember: false, otherIncomeCents: 1, jobseekersBenefitCents: 1,
            spouse: .init(incomeCents: 1, taxPaidCents: 1, dateOfBirth: "1990-01-01", profession: "none"),
            home: .init(rentPaidCents: 1, hasMortgage: true, mortgage: .init(interestPaidCents: 1, interest2022Cents: 1, balanceEnd2022Cents: 1),
                        serviceChargesCents: 1),
            expenses: .init(medicalCents: 1, nursingHomeCents: 1, tuition: .init(feesCents: 1, fullTime: true), otherEmploymentCents: 1))
        func leaves(_ value: Any, _ prefix: String) -> [String] {
            guard let object = value as? [String: Any] else { return [prefix] }
            return object.flatMap { key, child in leaves(child, prefix.isEmpty ? key : "\(prefix).\(key)") }
        }
        return leaves(try! JSONSerialization.jsonObject(with: JSONEncoder().encode(full)), "").sorted()
    }()

    @Test func everyAnswerHasHelpAndEveryHelpAnAnswer() {
        #expect(Self.scenarioFields.count == 25)
        #expect(Self.book.help.fields.map(\.field).sorted() == Self.scenarioFields)
    }

    @Test(arguments: [2022, 2023, 2024, 2025, 2026])
    func helpStatesTheYearsOwnFigures(year: Int) throws {
        let rules = try #require(Self.book.years[year])
        let help = try #require(Self.book.helpByYear[year])
        #expect(try help == Self.book.help.render(for: rules, professions: Self.book.flatRateExpenses.professions))
        let text = Dictionary(uniqueKeysWithValues: help.map { ($0.field, $0.help) })
        #expect(help.allSatisfy { !$0.help.contains("{{") && !$0.label.isEmpty })
        #expect(text["home.rentPaidCents"]?.contains(EuroText.format(cents: Int64(rules.credits.rentSingle) * 100)) == true)
        #expect(text["status"]?.contains(EuroText.format(cents: Int64(rules.standardRateCutOff.single) * 100)) == true)
        #expect(text["taxYear"]?.contains(String(year)) == true)
        let professions = try #require(help.first { $0.field == "profession" }?.options)
        #expect(professions.contains(.init(value: "nurse", label: "Nurses and midwives (€733)")))
        #expect(help.first { $0.field == "status" }?.options?.map(\.value) == RefundCalculator.Status.allCases.map(\.rawValue))
    }

    @Test func rentCreditHelpFollowsTheBudget() throws {
        let help2023 = try Self.book.help.render(for: #require(Self.book.years[2023]), professions: [])
        let help2024 = try Self.book.help.render(for: #require(Self.book.years[2024]), professions: [])
        #expect(help2023.first { $0.field == "home.rentPaidCents" }?.help.contains("up to €500 (€1,000 for a jointly assessed couple)") == true)
        #expect(help2024.first { $0.field == "home.rentPaidCents" }?.help.contains("up to €1,000 (€2,000 for a jointly assessed couple)") == true)
    }

    /// The mortgage help states each year's credit, and says there is none for 2022.
    @Test func mortgageHelpFollowsTheYearsCredit() throws {
        func help(_ year: Int) throws -> [String: String] {
            let rendered = try Self.book.help.render(for: #require(Self.book.years[year]), professions: [])
            return Dictionary(uniqueKeysWithValues: rendered.map { ($0.field, $0.help) })
        }
        let (y2022, y2024, y2026) = (try help(2022), try help(2024), try help(2026))
        #expect(y2022["home.hasMortgage"]?.contains("no Mortgage Interest Tax Credit for 2022") == true, "\(y2022["home.hasMortgage"] ?? "")")
        #expect(y2022["home.mortgage.interestPaidCents"]?.contains("no Mortgage Interest Tax Credit for 2022") == true)
        #expect(y2024["home.hasMortgage"]?.contains("20% of the rise") == true && y2024["home.hasMortgage"]?.contains("up to €1,250") == true,
                "\(y2024["home.hasMortgage"] ?? "")")
        #expect(y2026["home.hasMortgage"]?.contains("20% of half the rise") == true && y2026["home.hasMortgage"]?.contains("up to €625") == true)
        #expect(y2026["home.mortgage.balanceEnd2022Cents"]?.contains("€80,000 to €500,000") == true)
        #expect(y2024["salaryCents"]?.contains("stopped working") == true && y2024["taxPaidCents"]?.contains("stopped working") == true)
    }

    /// Copies the bundled data to a folder, lets `change` edit it, and loads it.
    func load(changing change: (URL) throws -> Void) throws -> RuleBook {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("refund-rules-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: RuleBook.bundledData, to: folder)
        try change(folder)
        return try RuleBook.load(from: folder)
    }

    @Test func theVersionChangesWithAnyFigureOrTextAndAddingAYearIsAFile() throws {
        let same = try load { _ in }
        #expect(same.version == Self.book.version)
        #expect(Self.book.version.wholeMatch(of: /[0-9a-f]{16}/) != nil)

        let help = try load(replacingInHelp: "Rent paid", with: "Rent you paid")
        #expect(help.version != Self.book.version)

        let added = try load { folder in
            let text = try String(contentsOf: folder.appendingPathComponent("rules/2026.json"), encoding: .utf8)
            try text.replacingOccurrences(of: "\"year\": 2026", with: "\"year\": 2027")
                .write(to: folder.appendingPathComponent("rules/2027.json"), atomically: true, encoding: .utf8)
        }
        #expect(added.years.keys.sorted() == [2022, 2023, 2024, 2025, 2026, 2027])
        #expect(added.version != Self.book.version)
        let nextYear = ISO8601DateFormatter().date(from: "2027-06-01T12:00:00Z")!
        #expect(added.window(on: nextYear) == 2023...2027)
        #expect(try Estimator(rules: added).estimate(.init(taxYear: 2027, salaryCents: 30_000_00), today: nextYear).taxYear == 2027)
    }

    /// Loads the bundled data with `text` in help.json replaced by `replacement`.
    func load(replacingInHelp text: String, with replacement: String) throws -> RuleBook {
        try load { folder in
            let file = folder.appendingPathComponent("help.json")
            try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: text, with: replacement).write(to: file, atomically: true, encoding: .utf8)
        }
    }

    /// 2022 has no mortgage credit, and the rent help has no `otherwise`.
    @Test func helpNamingAFigureSomeYearsLackNeedsAnOtherwise() {
        #expect(throws: (any Error).self) { try load(replacingInHelp: "Rent you paid in {{year}}", with: "Rent you paid in {{year}} ({{mortgageCap}})") }
    }

    @Test func helpNamingAFigureNoYearHasFailsToLoad() {
        #expect(throws: (any Error).self) { try load(replacingInHelp: "{{rentSingle}}", with: "{{rentTriple}}") }
    }
}
