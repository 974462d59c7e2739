import Foundation
import TaxFormContract
import TaxFormService
import Testing

@Suite(.timeLimit(.minutes(1))) struct IncomeTaxTests {
    static let book = try! RuleBook.bundled()

    /// Direct File's TY2024 cases from the reference (single), and the rows' edges.
    @Test(arguments: [
        (20_000, 2_171), (57_050, 7_610), (2_975, 299), (0, 0), (4, 0), (5, 1), (24, 2), (25, 4),
        (99_999, 17_048), (5_400, 543),
    ] as [(Int64, Int64)])
    func line16FollowsTheTaxTableBelow100000(taxable: Int64, dollars: Int64) throws {
        let rules = try #require(Self.book.years[2024])
        #expect(IncomeTax.line16(taxableDollars: taxable, status: .single, rules: rules) == dollars * 100)
    }

    @Test func from100000TheWorksheetTaxesTheIncomeItself() throws {
        let rules = try #require(Self.book.years[2024])
        // 10% of 11,600 + 12% of 35,550 + 22% of 52,850.
        #expect(IncomeTax.line16(taxableDollars: 100_000, status: .single, rules: rules) == 1_705_300)
        // 2023 married filing separately reaches 37% at 346,875 (the IRS worksheet, not taxcalc's 578,125).
        let y2023 = try #require(Self.book.years[2023])
        #expect(IncomeTax.line16(taxableDollars: 400_000, status: .marriedSeparately, rules: y2023) == 11_295_700)
        #expect(IncomeTax.line16(taxableDollars: 400_000, status: .single, rules: y2023) == 11_189_450)
    }

    @Test func everyYearFrom2023To2026HasRulesWithTheirSources() throws {
        #expect(Self.book.years.keys.sorted() == [2023, 2024, 2025, 2026])
        for rules in Self.book.years.values {
            #expect(rules.brackets.source.contains("us-student-tax.md") && rules.standardDeduction.source.contains("us-student-tax.md"))
        }
        #expect(Self.book.years[2025]?.standardDeduction[.single] == 15_750, "after the 2025 budget act")
    }

    @Test func aYearsRulesMustHoldTogether() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tax-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("rules"), withIntermediateDirectories: true)
        let good = try String(contentsOf: Self.dataFile("2024.json"), encoding: .utf8)
        try good.replacingOccurrences(of: "11600, 47150", with: "47150, 11600")
            .write(to: folder.appendingPathComponent("rules/2024.json"), atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) { try RuleBook.load(from: folder) }
        try good.write(to: folder.appendingPathComponent("rules/2024.json"), atomically: true, encoding: .utf8)
        #expect(try RuleBook.load(from: folder).years.keys.sorted() == [2024])
    }

    /// The deadlines, each moved past weekends and DC holidays: the IRS's own dates for these years.
    @Test func deadlinesMoveToTheNextBusinessDay() throws {
        let expected: [Int: [String]] = [
            2023: ["2024-04-15", "2024-06-17", "2024-10-15"], 2024: ["2025-04-15", "2025-06-16", "2025-10-15"],
            2025: ["2026-04-15", "2026-06-15", "2026-10-15"], 2026: ["2027-04-15", "2027-06-15", "2027-10-15"],
        ]
        for (year, dates) in expected {
            let deadlines = try #require(Self.book.years[year]?.deadlines)
            #expect([deadlines.due(.wages, taxYear: year), deadlines.due(.withoutWages, taxYear: year), deadlines.due(.extended, taxYear: year)] == dates)
        }
    }

    /// Each holiday in the data is where its rule puts it (5 U.S.C. 6103, D.C. Code 1-612.02a).
    @Test func theHolidaysFollowTheirRules() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        func date(_ year: Int, _ month: Int, _ day: Int) -> Date { calendar.date(from: DateComponents(year: year, month: month, day: day))! }
        func nth(_ n: Int, weekday: Int, _ year: Int, _ month: Int) -> Date {
            calendar.date(from: DateComponents(year: year, month: month, weekday: weekday, weekdayOrdinal: n))!
        }
        func lastMonday(_ year: Int, _ month: Int) -> Date {
            var day = calendar.date(byAdding: .day, value: -1, to: date(year, month + 1, 1))!
            while calendar.component(.weekday, from: day) != 2 { day = calendar.date(byAdding: .day, value: -1, to: day)! }
            return day
        }
        func observed(_ day: Date) -> Date {
            switch calendar.component(.weekday, from: day) {
            case 7: calendar.date(byAdding: .day, value: -1, to: day)!
            case 1: calendar.date(byAdding: .day, value: 1, to: day)!
            default: day
            }
        }
        func text(_ day: Date) -> String {
            let c = calendar.dateComponents([.year, .month, .day], from: day)
            return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
        }
        for (year, rules) in Self.book.years {
            let y = year + 1
            let expected = [
                observed(date(y, 1, 1)), nth(3, weekday: 2, y, 1), nth(3, weekday: 2, y, 2), observed(date(y, 4, 16)), lastMonday(y, 5),
                observed(date(y, 6, 19)), observed(date(y, 7, 4)), nth(1, weekday: 2, y, 9), nth(2, weekday: 2, y, 10), observed(date(y, 11, 11)),
                nth(4, weekday: 5, y, 11), observed(date(y, 12, 25)),
            ].map(text)
            #expect(rules.deadlines.holidays.map(\.date) == expected, "holidays of \(y)")
        }
    }

    static func dataFile(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Services/TaxForm/Data/rules/\(name)")
    }
}
