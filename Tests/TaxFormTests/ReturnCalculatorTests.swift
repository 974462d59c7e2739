import TaxFormContract
import TaxFormService
import Testing

@Suite(.timeLimit(.minutes(1))) struct ReturnCalculatorTests {
    static let y2024 = try! #require(IncomeTaxTests.book.years[2024])

    static func w2(wages: Int64, withheld: Int64, stateWithheld: Int64? = nil) -> TaxForm.W2 {
        TaxForm.W2(
            employerName: "Campus Dining", employerEIN: "12-3456789", wagesCents: wages, federalWithheldCents: withheld,
            states: stateWithheld.map { [.init(state: "MA", wagesCents: wages, withheldCents: $0)] })
    }

    static func dollars(_ form: TaxForm.ComputedForm?, _ lines: [String]) -> [Int64?] { lines.map { form?[$0]?.dollars } }

    @Test func aResidentStudentsReturnLineByLine() throws {
        var facts = ReturnFacts()
        facts.w2s = [Self.w2(wages: 2_000_040, withheld: 150_000), Self.w2(wages: 1_000_010, withheld: 100_000)]
        facts.interestCents = 12_345
        facts.scholarshipCents = 100_000
        let computed = ReturnCalculator.compute(facts, residency: .resident, rules: Self.y2024)
        let form = computed.forms.first { $0.form == .f1040 }
        // Box 1 adds to 30,000.50, shown as 30,001 (cents added first, the total rounded).
        #expect(form?["1a"]?.cents == 3_000_050)
        #expect(Self.dollars(form, ["1a", "2b", "8", "9", "11", "12", "15"]) == [30_001, 123, 1_000, 31_124, 31_124, 14_600, 16_524])
        // Tax Table row 16,500-16,550, midpoint 16,525: 1,160 + 12% of 4,925 = 1,751.
        #expect(Self.dollars(form, ["16", "24", "25a", "33", "34", "35a"]) == [1_751, 1_751, 2_500, 2_500, 749, 749])
        #expect(form?["37"] == nil && computed.refundCents == 74_900)
        let schedule1 = computed.forms.first { $0.form == .f1040Schedule1 }
        #expect(Self.dollars(schedule1, ["8r", "9", "10"]) == [1_000, 1_000, 1_000])
    }

    @Test func aChineseStudentsTreatyExemptsFiveThousandOfWagesOnThe1040NR() {
        var facts = ReturnFacts()
        facts.w2s = [Self.w2(wages: 2_000_000, withheld: 180_000, stateWithheld: 60_000)]
        facts.treaty = .init(country: "CN", arrivalYear: 2022)
        facts.interestCents = 5_000
        let computed = ReturnCalculator.compute(facts, residency: .nonresident, rules: Self.y2024)
        let form = computed.forms.first
        #expect(form?.form == .f1040NR)
        // 20,000 of wages, 5,000 exempt (article 20(c)); state tax withheld itemised; no standard deduction.
        #expect(Self.dollars(form, ["1a", "1k", "1z", "9", "11", "12", "15"]) == [15_000, 5_000, 15_000, 15_000, 15_000, 600, 14_400])
        // Row 14,400-14,450: 1,160 + 12% of 2,825 = 1,499.
        #expect(Self.dollars(form, ["16", "24", "25a", "33", "35a"]) == [1_499, 1_499, 1_800, 1_800, 301])
        #expect(form?["1k"]?.rule.contains("20(c)") == true)
        #expect(computed.notes.contains { $0.contains("interest is not taxable") })
    }

    @Test func anIndianStudentTakesTheStandardDeductionAndOthersOweWhenWithholdingFallsShort() {
        var india = ReturnFacts()
        india.w2s = [Self.w2(wages: 2_000_000, withheld: 50_000)]
        india.treaty = .init(country: "IN")
        let form = ReturnCalculator.compute(india, residency: .nonresident, rules: Self.y2024).forms.first
        // 20,000 - 14,600 = 5,400: row midpoint 5,425 at 10% is 542.50, rounded up to 543.
        #expect(Self.dollars(form, ["12", "15", "16", "37"]) == [14_600, 5_400, 543, 43])

        var other = ReturnFacts()
        other.w2s = [Self.w2(wages: 1_000_000, withheld: 0)]
        other.treaty = .init(country: "BR", arrivalYear: 2023)
        other.scholarshipCents = 250_000
        other.scholarshipWithheldCents = 35_000
        let computed = ReturnCalculator.compute(other, residency: .nonresident, rules: Self.y2024)
        // No student treaty for Brazil: 12,500 taxable, 1,160 + 12% of (12,525 - 11,600) = 1,271.
        #expect(Self.dollars(computed.forms.first, ["1a", "8", "12", "15", "16", "25g", "33", "37"]) == [10_000, 2_500, 0, 12_500, 1_271, 350, 350, 921])
        #expect(computed.refundCents == -92_100)
    }

    /// Germany art. 20(4): 9,000 of wages a year for 4 years, counted in calendar years from arrival.
    @Test func aGermanStudentsWagesAreExemptUpToNineThousandForFourYears() {
        var facts = ReturnFacts()
        facts.w2s = [Self.w2(wages: 1_500_000, withheld: 120_000)]
        facts.treaty = .init(country: "DE", arrivalYear: 2021, priorMonths: 28)
        let fourth = ReturnCalculator.compute(facts, residency: .nonresident, rules: Self.y2024)
        // 15,000 of wages, 9,000 exempt: 6,000 taxable, row 6,000-6,050 at 10% = 603.
        #expect(Self.dollars(fourth.forms.first, ["1a", "1k", "15", "16", "35a"]) == [6_000, 9_000, 6_000, 603, 597])
        #expect(fourth.notes.contains { $0.contains("no more than 4 years") }, "the treaty's own condition: \(fourth.notes)")

        facts.treaty = .init(country: "DE", arrivalYear: 2020)
        let fifth = ReturnCalculator.compute(facts, residency: .nonresident, rules: Self.y2024)
        #expect(fifth.forms.first?["1k"] == nil && Self.dollars(fifth.forms.first, ["1a"]) == [15_000])
        #expect(fifth.notes.contains { $0.contains("2020-2023: 2024 is past them") }, "\(fifth.notes)")

        facts.treaty = .init(country: "DE")
        #expect(ReturnCalculator.compute(facts, residency: .nonresident, rules: Self.y2024).forms.first?["1k"] == nil, "no arrival date: no claim")
        facts.treaty = .init(country: "DE", arrivalYear: 2025)
        let later = ReturnCalculator.compute(facts, residency: .nonresident, rules: Self.y2024)
        #expect(later.forms.first?["1k"] == nil && later.notes.contains { $0.contains("is after 2024") }, "\(later.notes)")
    }

    /// China's benefit survives the saving clause (Protocol para. 2): a resident alien reports the wages
    /// whole and takes 5,000 off on Schedule 1 line 8z, with Form 8833; Germany's does not.
    @Test func aResidentChineseStudentKeepsTheTreatyOnForm1040WithForm8833() {
        var facts = ReturnFacts()
        facts.w2s = [Self.w2(wages: 3_000_000, withheld: 250_000)]
        facts.treaty = .init(country: "CN", arrivalYear: 2018)
        let computed = ReturnCalculator.compute(facts, residency: .resident, rules: Self.y2024)
        let form = computed.forms.first { $0.form == .f1040 }, schedule1 = computed.forms.first { $0.form == .f1040Schedule1 }
        #expect(Self.dollars(schedule1, ["8z", "9", "10"]) == [-5_000, -5_000, -5_000])
        // 30,000 - 5,000 = 25,000 total income; 10,400 taxable: row 10,400-10,450 at 10% = 1,043.
        #expect(Self.dollars(form, ["1a", "8", "9", "15", "16"]) == [30_000, -5_000, 25_000, 10_400, 1_043])
        #expect(computed.forms.first { $0.form == .f8833 }?["6"]?.dollars == 5_000)

        facts.treaty = .init(country: "DE", arrivalYear: 2022)
        let german = ReturnCalculator.compute(facts, residency: .resident, rules: Self.y2024)
        #expect(german.forms.allSatisfy { $0.form != .f8833 } && german.forms.first { $0.form == .f1040Schedule1 } == nil)
        #expect(german.notes.contains { $0.contains("saving clause") }, "\(german.notes)")
    }

    /// Social Security and Medicare tax withheld from a nonresident F-1 student: the employer first,
    /// then Forms 843 and 8316 for what it did not pay back.
    @Test func ficaWithheldFromANonresidentStudentIsClaimedOnForms843And8316() {
        var facts = ReturnFacts()
        var w2 = Self.w2(wages: 1_000_000, withheld: 50_000)
        w2.socialSecurityWithheldCents = 62_000
        w2.medicareWithheldCents = 14_500
        facts.w2s = [w2]
        facts.visa = .f
        func claim(_ fica: FicaFacts, residency: TaxForm.Residency = .nonresident) -> ComputedReturn {
            facts.fica = fica
            return ReturnCalculator.compute(facts, residency: residency, rules: Self.y2024)
        }
        #expect(claim(.init()).notes.contains { $0.contains("you do not owe it") })
        #expect(claim(.init(authorized: true, employer: .notAsked)).notes.contains { $0.contains("Ask your employer to pay back the $765.00") })
        #expect(claim(.init(authorized: false)).forms.count == 1 && claim(.init(authorized: true, employer: .refundedAll)).forms.count == 1)
        let refused = claim(.init(authorized: true, employer: .refused))
        #expect(refused.forms.map(\.form) == [.f1040NR, .f843, .f8316])
        #expect(refused.forms[1]["2"]?.cents == 76_500 && refused.forms[2]["2"]?.cents == 0)
        let part = claim(.init(authorized: true, employer: .refundedPart, repaidCents: 20_000))
        #expect(part.forms[1]["2"]?.cents == 56_500 && part.forms[2]["2"]?.cents == 20_000)
        #expect(claim(.init(authorized: true, employer: .refused), residency: .resident).forms.allSatisfy { $0.form != .f843 }, "a resident owes it")
        facts.visa = .h1b
        #expect(claim(.init(authorized: true, employer: .refused)).forms.count == 1, "an H-1B worker owes it")
    }
}
