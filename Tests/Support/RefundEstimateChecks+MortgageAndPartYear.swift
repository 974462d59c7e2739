import RefundCalculatorContract
import Foundation
import RefundCalculatorService

/// The Mortgage Interest Tax Credit and a year that ends in unemployment, as checks any caller can
/// run. The figures are ../shared/reference/ireland-paye.md's, written out here rather than read
/// from the rules, so a wrong figure in the data fails them.
extension RefundEstimateChecks {
    /// The credit per year, by the reference: for 2023 to 2025, 20% of the rise over 2022 with the
    /// rise counted up to 6,250; for 2026, 20% of half the rise, counted up to 3,125; none before.
    static let mortgageCreditByYear: [Int: (share: Int64, cap: Int64)] = [
        2023: (100, 6_250_00), 2024: (100, 6_250_00), 2025: (100, 6_250_00), 2026: (50, 3_125_00),
    ]

    static func mortgage(interest: Int64, in2022: Int64 = 13_000_00, balance: Int64 = 200_000_00) -> Scenario.Home {
        .init(hasMortgage: true, mortgage: .init(interestPaidCents: interest, interest2022Cents: in2022, balanceEnd2022Cents: balance))
    }

    /// Red Oak's example (13,000 in 2022, 17,000 in the year: a rise of 4,000) and a rise past the
    /// cap (10,000), for a single 60,000 earner: the credit's line and the tax it saves are the
    /// year's; a year without the credit says so.
    public func mortgageInterestCreditEachYear(year: Int) async throws -> [String] {
        var problems = Problems()
        let base = Scenario(taxYear: year, status: .single, salaryCents: 60_000_00)
        let plain = try await estimate(base)
        var declared = base
        declared.home = .init(hasMortgage: true)
        let withoutFigures = try await estimate(declared)
        problems.check(withoutFigures.warnings.map(\.field) == (Self.mortgageCreditByYear[year] == nil ? ["data.home.hasMortgage"] : []),
                       "\(year), a mortgage without figures: warnings \(withoutFigures.warnings)")
        for interest: Int64 in [17_000_00, 23_000_00] {
            var scenario = base
            scenario.home = Self.mortgage(interest: interest)
            let result = try await estimate(scenario)
            let line = Self.credit(result, "Mortgage interest")
            guard let (share, cap) = Self.mortgageCreditByYear[year] else {
                problems.check(line == nil, "\(year) has no mortgage credit, yet: \(result.lines)")
                problems.check(result.warnings.map(\.field) == ["data.home.mortgage"] && result.warnings[0].message.contains("2023 to 2026"),
                               "\(year): no warning that the credit is for 2023 to 2026: \(result.warnings)")
                continue
            }
            let expected = min((interest - 13_000_00) * share / 100, cap) / 5
            problems.check(line == expected, "\(year), interest \(interest): credit \(String(describing: line)), not \(expected)")
            problems.check(plain.taxDueCents - result.taxDueCents == expected, "\(year), interest \(interest): saves \(plain.taxDueCents - result.taxDueCents)")
            problems.check(result.uscCents == plain.uscCents, "\(year): the credit changed USC")
            problems.check(result.warnings.isEmpty, "\(year): warnings \(result.warnings)")
        }
        return problems.list
    }

    /// 2024: the balance on 31 December 2022 qualifies from 80,000 to 500,000, both included; no rise,
    /// or a balance outside, gives no credit and a warning naming the answer; a mortgage without its
    /// figures names them as missing.
    public func mortgageInterestEdges() async throws -> [String] {
        var problems = Problems()
        func result(_ home: Scenario.Home) async throws -> Estimate {
            try await estimate(.init(taxYear: 2024, status: .single, salaryCents: 60_000_00, home: home))
        }
        for (balance, qualifies) in [(80_000_00, true), (79_999_99, false), (500_000_00, true), (500_000_01, false)] as [(Int64, Bool)] {
            let estimate = try await result(Self.mortgage(interest: 17_000_00, balance: balance))
            problems.check(Self.credit(estimate, "Mortgage interest") == (qualifies ? 800_00 : nil), "balance \(balance): \(estimate.lines)")
            problems.check(estimate.warnings.map(\.field) == (qualifies ? [] : ["data.home.mortgage.balanceEnd2022Cents"]),
                           "balance \(balance): warnings \(estimate.warnings)")
        }
        for interest: Int64 in [13_000_00, 9_000_00] {
            let estimate = try await result(Self.mortgage(interest: interest))
            problems.check(Self.credit(estimate, "Mortgage interest") == nil, "no rise (\(interest)), yet a credit: \(estimate.lines)")
            problems.check(estimate.warnings.map(\.field) == ["data.home.mortgage.interestPaidCents"], "no rise: warnings \(estimate.warnings)")
        }
        let unanswered = try await result(.init(hasMortgage: true))
        problems.check(unanswered.missing.suffix(3) == ["home.mortgage.interestPaidCents", "home.mortgage.interest2022Cents", "home.mortgage.balanceEnd2022Cents"],
                       "a mortgage without figures: missing \(unanswered.missing)")
        problems.check(unanswered.warnings.isEmpty, "a mortgage without figures: warnings \(unanswered.warnings)")
        var declined = Self.mortgage(interest: 17_000_00)
        declined.hasMortgage = false
        let noMortgage = try await result(declined)
        problems.check(Self.credit(noMortgage, "Mortgage interest") == nil && noMortgage.warnings.map(\.field) == ["data.home.hasMortgage"],
                       "no mortgage, yet figures: \(noMortgage.lines) \(noMortgage.warnings)")
        return problems.list
    }

    /// 2024: a credit larger than the tax due takes the tax to zero and no further (it is not
    /// refundable, and USC is untouched); a jointly assessed couple gets one credit for its home.
    public func mortgageCreditOnlyDownToZeroAndOncePerHome() async throws -> [String] {
        var problems = Problems()
        // 20,000: gross tax 4,000 less personal and employee credits 3,750 leaves 250.
        let low = Scenario(taxYear: 2024, status: .single, salaryCents: 20_000_00, taxPaidCents: 250_00)
        var withCredit = low
        withCredit.home = Self.mortgage(interest: 23_000_00)
        let before = try await estimate(low), after = try await estimate(withCredit)
        problems.check(before.taxDueCents == 250_00, "20,000 in 2024: tax due \(before.taxDueCents), not 250")
        problems.check(after.taxDueCents == 0 && after.refundCents == 250_00, "a 1,250 credit against 250: due \(after.taxDueCents), refund \(after.refundCents)")
        problems.check(after.uscCents == before.uscCents, "the credit changed USC")

        let couple = Scenario(taxYear: 2024, status: .marriedTwoIncomes, salaryCents: 50_000_00, spouse: .init(incomeCents: 40_000_00))
        var coupleWithCredit = couple
        coupleWithCredit.home = Self.mortgage(interest: 23_000_00)
        let shared = try await estimate(coupleWithCredit)
        let lines = shared.lines.filter { $0.kind == .credit && $0.label.hasPrefix("Mortgage interest") }
        problems.check(lines.map(\.amountCents) == [1_250_00], "a couple: mortgage credits \(lines)")
        problems.check(try await estimate(couple).taxDueCents - shared.taxDueCents == 1_250_00, "a couple saves more or less than one credit")
        return problems.list
    }

    /// Red Oak's user who lost their job at the end of June 2024: 21,000 paid and 2,325 of tax deducted
    /// on the cumulative basis (21,000 at 20% less half the year's credits, 1,875), then 6,006 of
    /// taxable Jobseeker's Benefit. A full year's credits against 27,006 leave 1,651.20 due: a refund of
    /// 673.80, and USC on the pay alone. The benefit counts towards the employee credit's limit.
    public func partYearUnemployment() async throws -> [String] {
        var problems = Problems()
        let worked = Scenario(taxYear: 2024, status: .single, salaryCents: 21_000_00, taxPaidCents: 2_325_00)
        var claimed = worked
        claimed.jobseekersBenefitCents = 6_006_00
        let withBenefit = try await estimate(claimed), payOnly = try await estimate(worked)
        problems.check(withBenefit.taxDueCents == 1_651_20 && withBenefit.refundCents == 673_80,
                       "with the benefit: due \(withBenefit.taxDueCents), refund \(withBenefit.refundCents), not 1,651.20 and 673.80")
        problems.check(withBenefit.uscCents == 239_82 && payOnly.uscCents == 239_82, "USC \(withBenefit.uscCents), not 239.82 on the pay alone")
        problems.check(withBenefit.lines.contains { $0.kind == .income && $0.amountCents == 6_006_00 }, "no line for the benefit: \(withBenefit.lines)")
        problems.check(payOnly.refundCents == 1_875_00, "pay alone: refund \(payOnly.refundCents), not 1,875 (2,325 less 4,200 - 3,750)")
        // Three months' pay (6,000) and 3,000 of benefit: the employee credit is 20% of 9,000, not of 6,000.
        let short = try await estimate(.init(taxYear: 2024, status: .single, salaryCents: 6_000_00, jobseekersBenefitCents: 3_000_00))
        problems.check(Self.credit(short, "Employee credit") == 1_800_00, "employee credit \(String(describing: Self.credit(short, "Employee credit"))), not 1,800")
        return problems.list
    }
}
