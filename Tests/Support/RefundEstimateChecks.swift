import RefundCalculatorContract
import Contracts
import Envelope
import Foundation
import RefundCalculatorService

/// What the refund estimate must do, as checks any caller can run: the unit tests with the
/// `Estimator` in process, the integration tests over HTTP through the gateway. Each check returns
/// what did not hold (empty: all held). Figures come from ../shared/reference/ireland-paye.md (the
/// worked examples) and the bundled rules (the credits' amounts per year).
public struct RefundEstimateChecks: Sendable {
    public typealias Scenario = RefundCalculator.Scenario
    public typealias Estimate = RefundCalculator.Estimate

    /// Makes an estimate; refusals throw `OperationError` with the fields named `data.…`.
    let estimate: @Sendable (Scenario) async throws -> Estimate
    let rules: RuleBook

    public init(rules: RuleBook, estimate: @escaping @Sendable (Scenario) async throws -> Estimate) {
        self.rules = rules
        self.estimate = estimate
    }

    /// Collects what did not hold.
    struct Problems {
        var list: [String] = []
        mutating func check(_ holds: Bool, _ what: @autoclosure () -> String) { if !holds { list.append(what()) } }
    }

    static func credit(_ estimate: Estimate, _ label: String) -> Int64? {
        estimate.lines.first { $0.kind == .credit && $0.label.hasPrefix(label) }?.amountCents
    }

    /// The two Citizens Information case studies for 2024, exactly.
    public func workedExamples() async throws -> [String] {
        var problems = Problems()
        let first = try await estimate(.init(taxYear: 2024, status: .single, salaryCents: 28_000_00, taxPaidCents: 1_850_00))
        problems.check(first.lines.first { $0.kind == .grossTax }?.amountCents == 5_600_00, "28,000: gross tax is not 5,600: \(first.lines)")
        problems.check(first.taxDueCents == 1_850_00, "28,000: tax due \(first.taxDueCents), not 1,850 (5,600 less credits 3,750)")
        problems.check(first.uscCents == 424_62, "28,000: USC \(first.uscCents), not 424.62")
        problems.check(first.refundCents == 0, "28,000: refund \(first.refundCents), not 0")
        let second = try await estimate(.init(taxYear: 2024, status: .single, salaryCents: 43_200_00, taxPaidCents: 5_500_00))
        let bands = second.lines.filter { $0.kind == .band }.map(\.amountCents)
        problems.check(bands == [8_400_00, 480_00], "43,200: bands \(bands), not 42,000 at 20% and 1,200 at 40%")
        problems.check(second.taxDueCents == 5_130_00, "43,200: tax due \(second.taxDueCents), not 5,130")
        problems.check(second.uscCents == 1_032_62, "43,200: USC \(second.uscCents), not 1,032.62")
        problems.check(second.refundCents == 370_00, "43,200 with 5,500 paid: refund \(second.refundCents), not 370")
        problems.check(second.lines.allSatisfy { second.sources.indices.contains($0.source) && !second.sources[$0.source].isEmpty },
                       "a line without its rule: \(second.lines)")
        problems.check(Set(second.sources).count == second.sources.count, "a source named twice: \(second.sources)")
        return problems.list
    }

    /// A partial answer already gives an estimate (for last year by default) and names what is missing.
    public func partialInput(today: Date) async throws -> [String] {
        var problems = Problems()
        let result = try await estimate(.init(salaryCents: 30_000_00))
        let lastYear = RuleBook.taxYear(of: today) - 1
        problems.check(result.taxYear == lastYear, "no year given: the estimate is for \(result.taxYear), not last year")
        problems.check(result.taxDueCents > 0, "a salary alone gives no tax due")
        problems.check(result.missing.prefix(2) == ["taxYear", "taxPaidCents"], "missing starts \(result.missing.prefix(2))")
        let empty = try await estimate(.init())
        problems.check(empty.taxDueCents == 0 && empty.refundCents == 0, "an empty answer estimates \(empty.refundCents)")
        return problems.list
    }

    /// 2024: the two-income band is 51,000 plus the lower income, at most 33,000 more.
    public func marriedTwoIncomeIncreaseIsCappedByTheLowerIncome() async throws -> [String] {
        var problems = Problems()
        func result(_ spouse: Int64) async throws -> Estimate {
            try await estimate(.init(taxYear: 2024, status: .marriedTwoIncomes, salaryCents: 90_000_00, spouse: .init(incomeCents: spouse)))
        }
        let small = try await result(10_000_00), large = try await result(50_000_00)
        problems.check(small.lines.first { $0.kind == .band }?.label.contains("€61,000") == true, "10,000 spouse: \(small.lines)")
        problems.check(large.lines.first { $0.kind == .band }?.label.contains("€84,000") == true, "50,000 spouse: \(large.lines)")
        problems.check(try await result(50_000_00).taxDueCents > result(40_000_00).taxDueCents, "past the cap, more income is not taxed more")
        return problems.list
    }

    /// 2024: 1,800, less half the carer's income over 7,200; the couple gets it or the band increase
    /// (the carer's income at 20%), whichever leaves less tax.
    public func homeCarerTapers() async throws -> [String] {
        var problems = Problems()
        func result(_ spouseIncome: Int64) async throws -> Estimate {
            try await estimate(.init(taxYear: 2024, status: .marriedTwoIncomes, dependentChildren: 1, salaryCents: 60_000_00,
                                     spouse: .init(incomeCents: spouseIncome)))
        }
        problems.check(Self.credit(try await result(7_200_00), "Home carer") == 1_800_00, "1,800 beats 7,200 at 20% (1,440)")
        problems.check(Self.credit(try await result(7_600_00), "Home carer") == 1_600_00, "tapered by 200, still beats 1,520")
        let banded = try await result(8_200_00)
        problems.check(Self.credit(banded, "Home carer") == nil, "1,300 loses to 8,200 at 20% (1,640)")
        problems.check(banded.lines.first { $0.kind == .band }?.label.contains("€59,200") == true, "the band increase: \(banded.lines)")
        let oneIncome = try await estimate(.init(taxYear: 2024, status: .marriedOneIncome, dependentChildren: 2, salaryCents: 60_000_00))
        problems.check(Self.credit(oneIncome, "Home carer") == 1_800_00, "one income with children: \(oneIncome.lines)")
        let noChildren = try await estimate(.init(taxYear: 2024, status: .marriedOneIncome, salaryCents: 60_000_00))
        problems.check(Self.credit(noChildren, "Home carer") == nil, "only with a dependent person")
        return problems.list
    }

    /// Each credit and relief alone, against a single 80,000 earner, worth what the year's rules say.
    public func eachCreditAndReliefOnItsOwn(year: Int) async throws -> [String] {
        var problems = Problems()
        guard let rules = rules.years[year] else { return ["no rules for \(year)"] }
        let base = Scenario(taxYear: year, status: .single, salaryCents: 80_000_00)
        let plain = try await estimate(base)
        func gain(_ change: (inout Scenario) -> Void) async throws -> Int64 {
            var scenario = base
            change(&scenario)
            return plain.taxDueCents - (try await estimate(scenario)).taxDueCents
        }
        let euro: Int64 = 100
        let childCarer = Int64(rules.credits.singleChildCarer + (rules.standardRateCutOff.singleChildCarer - rules.standardRateCutOff.single) * 20 / 100)
        let expected: [(String, (inout Scenario) -> Void, Int64)] = [
            ("20% of medical expenses", { $0.expenses = .init(medicalCents: 1_000_00) }, 200 * euro),
            ("full-time tuition, capped per course, less 3,000", { $0.expenses = .init(tuition: .init(feesCents: 8_000_00, fullTime: true)) },
             (7_000 - 3_000) * 20 * euro / 100),
            ("part-time tuition less 1,500", { $0.expenses = .init(tuition: .init(feesCents: 2_000_00, fullTime: false)) }, (2_000 - 1_500) * 20 * euro / 100),
            ("the rent credit, capped", { $0.home = .init(rentPaidCents: 20_000_00) }, Int64(rules.credits.rentSingle) * euro),
            ("nurses' flat-rate expenses at the marginal rate", { $0.profession = "nurse" }, 733 * 40 * euro / 100),
            ("nursing home fees at the marginal rate", { $0.expenses = .init(nursingHomeCents: 1_000_00) }, 400 * euro),
            ("the age credit", { $0.dateOfBirth = "\(year - 66)-05-01" }, Int64(rules.credits.age65Single) * euro),
            ("the child carer credit and the wider band", { $0.dependentChildren = 1 }, childCarer * euro),
            ("trade union membership (nothing)", { $0.tradeUnionMember = true }, 0),
            ("service charges (nothing)", { $0.home = .init(serviceChargesCents: 400_00) }, 0),
        ]
        for (what, change, cents) in expected {
            let actual = try await gain(change)
            problems.check(actual == cents, "\(year), \(what): saves \(actual) cents, not \(cents)")
        }
        return problems.list
    }

    /// `count` random scenarios (Jobseeker's Benefit and a mortgage among their answers): more tax
    /// paid, a larger medical expense or more mortgage interest in the year never lowers the refund;
    /// more interest in 2022 never raises it.
    public func moreTaxPaidMedicalOrInterestNeverLowersTheRefund(count: Int, years: ClosedRange<Int>) async throws -> [String] {
        var problems = Problems()
        var generator = SystemRandomNumberGenerator()
        func cents(_ range: ClosedRange<Int64>) -> Int64 { Int64.random(in: range, using: &generator) }
        for _ in 0..<count {
            let scenario = Scenario(
                taxYear: Int.random(in: years, using: &generator), status: RefundCalculator.Status.allCases.randomElement(using: &generator)!,
                dependentChildren: Int.random(in: 0...3, using: &generator), salaryCents: cents(0...150_000_00), taxPaidCents: cents(0...40_000_00),
                jobseekersBenefitCents: Bool.random(using: &generator) ? cents(0...12_000_00) : nil, spouse: .init(incomeCents: cents(0...80_000_00)),
                home: .init(mortgage: .init(interestPaidCents: cents(0...25_000_00), interest2022Cents: cents(0...20_000_00),
                                            balanceEnd2022Cents: cents(50_000_00...600_000_00))),
                expenses: .init(medicalCents: cents(0...5_000_00)))
            var paidMore = scenario
            paidMore.taxPaidCents! += cents(1...5_000_00)
            var moreMedical = scenario
            moreMedical.expenses!.medicalCents! += cents(1...5_000_00)
            var moreInterest = scenario
            moreInterest.home!.mortgage!.interestPaidCents! += cents(1...10_000_00)
            var more2022Interest = scenario
            more2022Interest.home!.mortgage!.interest2022Cents! += cents(1...10_000_00)
            let refund = try await estimate(scenario).refundCents
            problems.check(try await estimate(paidMore).refundCents >= refund, "more tax paid lowered the refund: \(paidMore)")
            problems.check(try await estimate(moreMedical).refundCents >= refund, "more medical expenses lowered the refund: \(moreMedical)")
            problems.check(try await estimate(moreInterest).refundCents >= refund, "more mortgage interest lowered the refund: \(moreInterest)")
            problems.check(try await estimate(more2022Interest).refundCents <= refund, "more 2022 interest raised the refund: \(more2022Interest)")
        }
        return problems.list
    }

    /// Negative amounts, a year outside the window, an unknown profession or a bad date are
    /// `invalid`, naming each field.
    public func badAnswersAreInvalidNamingTheField(window: ClosedRange<Int>) async -> [String] {
        var problems = Problems()
        func fields(_ scenario: Scenario) async -> [String] {
            do {
                _ = try await estimate(scenario)
                return []
            } catch let error as OperationError where error.code == .invalid {
                return error.fields.map(\.field)
            } catch {
                return ["not invalid: \(error)"]
            }
        }
        let cases: [(Scenario, [String])] = [
            (.init(taxYear: window.lowerBound - 1), ["data.taxYear"]),
            (.init(taxYear: window.upperBound + 1), ["data.taxYear"]),
            (.init(salaryCents: -1, taxPaidCents: -5), ["data.salaryCents", "data.taxPaidCents"]),
            (.init(profession: "astronaut"), ["data.profession"]),
            (.init(dateOfBirth: "21/11/1990"), ["data.dateOfBirth"]),
            (.init(expenses: .init(medicalCents: -100)), ["data.expenses.medicalCents"]),
            (.init(jobseekersBenefitCents: -1, home: .init(mortgage: .init(balanceEnd2022Cents: -1))),
             ["data.jobseekersBenefitCents", "data.home.mortgage.balanceEnd2022Cents"]),
            // Several at once, as the schema sees them and as the rules see them.
            (.init(salaryCents: -1, spouse: .init(taxPaidCents: -5)), ["data.salaryCents", "data.spouse.taxPaidCents"]),
            (.init(taxYear: 2019, profession: "astronaut"), ["data.taxYear", "data.profession"]),
        ]
        for (scenario, expected) in cases {
            let actual = await fields(scenario)
            problems.check(actual == expected, "\(scenario) is refused naming \(actual), not \(expected)")
        }
        return problems.list
    }
}
