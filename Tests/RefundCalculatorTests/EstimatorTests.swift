import Contracts
import Envelope
import Foundation
import RefundCalculatorService
import Testing

/// The estimator against the worked examples of ../shared/reference/ireland-paye.md and the rules'
/// properties.
@Suite struct EstimatorTests {
    typealias Scenario = RefundCalculator.Scenario
    static let estimator = Estimator(rules: try! RuleBook.bundled())
    /// A day in the year the tests are written for: the window is 2022 to 2026.
    static let today = ISO8601DateFormatter().date(from: "2026-11-21T12:00:00Z")!

    func estimate(_ scenario: Scenario) throws -> RefundCalculator.Estimate {
        try Self.estimator.estimate(scenario, today: Self.today)
    }

    func credit(_ estimate: RefundCalculator.Estimate, _ label: String) -> Int64? {
        estimate.lines.first { $0.kind == .credit && $0.label.hasPrefix(label) }?.amountCents
    }

    @Test func citizensInformationCaseStudy2024SinglePAYEEarning28000() throws {
        let result = try estimate(.init(taxYear: 2024, status: .single, salaryCents: 28_000_00, taxPaidCents: 1_850_00))
        #expect(result.lines.first { $0.kind == .grossTax }?.amountCents == 5_600_00)
        #expect(result.taxDueCents == 1_850_00, "gross 5,600 less credits 3,750")
        #expect(result.uscCents == 424_62)
        #expect(result.refundCents == 0)
    }

    @Test func citizensInformationCaseStudy2024SinglePAYEEarning43200() throws {
        let result = try estimate(.init(taxYear: 2024, status: .single, salaryCents: 43_200_00, taxPaidCents: 5_500_00))
        let bands = result.lines.filter { $0.kind == .band }.map(\.amountCents)
        #expect(bands == [8_400_00, 480_00], "42,000 at 20%, 1,200 at 40%")
        #expect(result.taxDueCents == 5_130_00)
        #expect(result.uscCents == 1_032_62)
        #expect(result.refundCents == 370_00)
    }

    @Test func aPartialAnswerAlreadyGivesAnEstimateAndSaysWhatIsMissing() throws {
        let result = try estimate(.init(salaryCents: 30_000_00))
        #expect(result.taxYear == 2025, "last year when no year is given")
        #expect(result.taxDueCents > 0)
        #expect(result.missing.prefix(2) == ["taxYear", "taxPaidCents"])
        let empty = try estimate(.init())
        #expect(empty.taxDueCents == 0 && empty.refundCents == 0)
    }

    @Test func theMarriedTwoIncomeIncreaseIsCappedByTheLowerIncome() throws {
        func due(_ spouse: Int64) throws -> Int64 {
            try estimate(.init(taxYear: 2024, status: .marriedTwoIncomes, salaryCents: 90_000_00, spouse: .init(incomeCents: spouse))).taxDueCents
        }
        // 2024: 51,000 plus the lower income up to 33,000.
        let small = try estimate(.init(taxYear: 2024, status: .marriedTwoIncomes, salaryCents: 90_000_00, spouse: .init(incomeCents: 10_000_00)))
        #expect(small.lines.first { $0.kind == .band }?.label.contains("€61,000") == true, "\(small.lines)")
        let large = try estimate(.init(taxYear: 2024, status: .marriedTwoIncomes, salaryCents: 90_000_00, spouse: .init(incomeCents: 50_000_00)))
        #expect(large.lines.first { $0.kind == .band }?.label.contains("€84,000") == true, "\(large.lines)")
        #expect(try due(50_000_00) > due(40_000_00))
    }

    @Test func theHomeCarerCreditTapersAndIsChosenOnlyWhenItBeatsTheBandIncrease() throws {
        // 2024: 1,800, less half the carer's income over 7,200. The couple gets the credit or the
        // band increase (the carer's income at 20%), whichever leaves less tax.
        func result(_ spouseIncome: Int64) throws -> RefundCalculator.Estimate {
            try estimate(.init(taxYear: 2024, status: .marriedTwoIncomes, dependentChildren: 1, salaryCents: 60_000_00,
                               spouse: .init(incomeCents: spouseIncome)))
        }
        #expect(credit(try result(7_200_00), "Home carer") == 1_800_00, "1,800 beats 7,200 at 20% (1,440)")
        #expect(credit(try result(7_600_00), "Home carer") == 1_600_00, "tapered by 200, still beats 1,520")
        let banded = try result(8_200_00)
        #expect(credit(banded, "Home carer") == nil, "1,300 loses to 8,200 at 20% (1,640)")
        #expect(banded.lines.first { $0.kind == .band }?.label.contains("€59,200") == true, "\(banded.lines)")
        let oneIncome = try estimate(.init(taxYear: 2024, status: .marriedOneIncome, dependentChildren: 2, salaryCents: 60_000_00))
        #expect(credit(oneIncome, "Home carer") == 1_800_00)
        let noChildren = try estimate(.init(taxYear: 2024, status: .marriedOneIncome, salaryCents: 60_000_00))
        #expect(credit(noChildren, "Home carer") == nil, "only with a dependent person")
    }

    @Test(arguments: 2022...2026)
    func eachCreditAndReliefOnItsOwn(_ year: Int) throws {
        let rules = try #require(Self.estimator.rules.years[year])
        let base = Scenario(taxYear: year, status: .single, salaryCents: 80_000_00)
        let plain = try estimate(base)
        func gain(_ change: (inout Scenario) -> Void) throws -> Int64 {
            var scenario = base
            change(&scenario)
            return plain.taxDueCents - (try estimate(scenario)).taxDueCents
        }
        let euro: Int64 = 100
        #expect(try gain { $0.expenses = .init(medicalCents: 1_000_00) } == 200 * euro, "20% of medical")
        #expect(try gain { $0.expenses = .init(tuition: .init(feesCents: 8_000_00, fullTime: true)) } == (7_000 - 3_000) * 20 * euro / 100)
        #expect(try gain { $0.expenses = .init(tuition: .init(feesCents: 2_000_00, fullTime: false)) } == (2_000 - 1_500) * 20 * euro / 100)
        #expect(try gain { $0.home = .init(rentPaidCents: 20_000_00) } == Int64(rules.credits.rentSingle) * euro, "capped")
        #expect(try gain { $0.profession = "nurse" } == 733 * 40 * euro / 100, "at the marginal rate")
        #expect(try gain { $0.expenses = .init(nursingHomeCents: 1_000_00) } == 400 * euro)
        #expect(try gain { $0.dateOfBirth = "\(year - 66)-05-01" } == Int64(rules.credits.age65Single) * euro)
        #expect(try gain { $0.dependentChildren = 1 } == Int64(rules.credits.singleChildCarer + (rules.standardRateCutOff.singleChildCarer - rules.standardRateCutOff.single) * 20 / 100) * euro,
                "the child carer credit and the wider band")
        #expect(try gain { $0.tradeUnionMember = true } == 0)
        #expect(try gain { $0.home = .init(serviceChargesCents: 400_00) } == 0)
    }

    @Test func answersThatAddNothingSayWhy() throws {
        let result = try estimate(.init(taxYear: 2025, salaryCents: 40_000_00, tradeUnionMember: true, home: .init(serviceChargesCents: 300_00)))
        #expect(result.warnings.map(\.field) == ["data.tradeUnionMember", "data.home.serviceChargesCents"])
        #expect(result.warnings[0].message.contains("2011"))
    }

    @Test func moreTaxPaidOrALargerMedicalExpenseNeverLowersTheRefund() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let status = RefundCalculator.Status.allCases.randomElement(using: &generator)!
            let scenario = Scenario(
                taxYear: Int.random(in: 2022...2026), status: status, dependentChildren: Int.random(in: 0...3),
                salaryCents: Int64.random(in: 0...150_000_00), taxPaidCents: Int64.random(in: 0...40_000_00),
                spouse: .init(incomeCents: Int64.random(in: 0...80_000_00)), expenses: .init(medicalCents: Int64.random(in: 0...5_000_00)))
            var paidMore = scenario
            paidMore.taxPaidCents! += Int64.random(in: 1...5_000_00)
            var moreMedical = scenario
            moreMedical.expenses!.medicalCents! += Int64.random(in: 1...5_000_00)
            let refund = try estimate(scenario).refundCents
            #expect(try estimate(paidMore).refundCents >= refund, "\(scenario)")
            #expect(try estimate(moreMedical).refundCents >= refund, "\(scenario)")
        }
    }

    @Test func badAnswersAreInvalidNamingTheField() throws {
        func fields(_ scenario: Scenario) -> [String] {
            do {
                _ = try estimate(scenario)
                return []
            } catch {
                return (error as? OperationError)?.fields.map(\.field) ?? ["not an OperationError: \(error)"]
            }
        }
        #expect(fields(.init(taxYear: 2019)) == ["data.taxYear"])
        #expect(fields(.init(taxYear: 2027)) == ["data.taxYear"])
        #expect(fields(.init(salaryCents: -1, taxPaidCents: -5)) == ["data.salaryCents", "data.taxPaidCents"])
        #expect(fields(.init(profession: "astronaut")) == ["data.profession"])
        #expect(fields(.init(dateOfBirth: "21/11/1990")) == ["data.dateOfBirth"])
        #expect(fields(.init(expenses: .init(medicalCents: -100))) == ["data.expenses.medicalCents"])
    }
}
