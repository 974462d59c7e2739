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
        facts.treatyCountry = "CN"
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
        india.treatyCountry = "IN"
        let form = ReturnCalculator.compute(india, residency: .nonresident, rules: Self.y2024).forms.first
        // 20,000 - 14,600 = 5,400: row midpoint 5,425 at 10% is 542.50, rounded up to 543.
        #expect(Self.dollars(form, ["12", "15", "16", "37"]) == [14_600, 5_400, 543, 43])

        var other = ReturnFacts()
        other.w2s = [Self.w2(wages: 1_000_000, withheld: 0)]
        other.treatyCountry = "FR"
        other.scholarshipCents = 250_000
        other.scholarshipWithheldCents = 35_000
        let computed = ReturnCalculator.compute(other, residency: .nonresident, rules: Self.y2024)
        // No treaty in the data for France: 12,500 taxable, 1,160 + 12% of (12,525 - 11,600) = 1,271.
        #expect(Self.dollars(computed.forms.first, ["1a", "8", "12", "15", "16", "25g", "33", "37"]) == [10_000, 2_500, 0, 12_500, 1_271, 350, 350, 921])
        #expect(computed.refundCents == -92_100)
    }
}
