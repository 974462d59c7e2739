import RefundCalculatorContract
import Contracts
import Envelope
import Foundation
import RefundCalculatorService
import Testing
import TestSupport

/// The estimator against the worked examples of ../shared/reference/ireland-paye.md and the rules'
/// properties.
@Suite(.timeLimit(.minutes(2))) struct EstimatorTests {
    typealias Scenario = RefundCalculator.Scenario
    static let estimator = Estimator(rules: try! RuleBook.bundled())
    /// A day in the year the tests are written for: the window is 2022 to 2026.
    static let today = ISO8601DateFormatter().date(from: "2026-11-21T12:00:00Z")!

    func estimate(_ scenario: Scenario) throws -> RefundCalculator.Estimate {
        try Self.estimator.estimate(scenario, today: Self.today)
    }

    /// The checks the HTTP tests run through the gateway, here on the estimator alone.
    static let checks = RefundEstimateChecks(rules: estimator.rules) { try estimator.estimate($0, today: today) }

    /// Callers on the bus (not behind the gateway's schema check) hear of every bad answer at once.
    @Test func badAnswersOfEveryKindAreNamedAtOnce() {
        let scenario = Scenario(taxYear: 2019, salaryCents: -1, profession: "astronaut", spouse: .init(taxPaidCents: -5))
        let error = #expect(throws: OperationError.self) { try estimate(scenario) }
        #expect(error?.fields.map(\.field) == ["data.taxYear", "data.salaryCents", "data.spouse.taxPaidCents", "data.profession"])
    }

    @Test func theReferencesWorkedExamplesExactly() async throws {
        #expect(try await Self.checks.workedExamples() == [])
    }

    @Test func aPartialAnswerAlreadyGivesAnEstimateAndSaysWhatIsMissing() async throws {
        #expect(try await Self.checks.partialInput(today: Self.today) == [])
    }

    @Test func theMarriedTwoIncomeIncreaseIsCappedByTheLowerIncome() async throws {
        #expect(try await Self.checks.marriedTwoIncomeIncreaseIsCappedByTheLowerIncome() == [])
    }

    @Test func theHomeCarerCreditTapersAndIsChosenOnlyWhenItBeatsTheBandIncrease() async throws {
        #expect(try await Self.checks.homeCarerTapers() == [])
    }

    @Test(arguments: 2022...2026)
    func eachCreditAndReliefOnItsOwn(_ year: Int) async throws {
        #expect(try await Self.checks.eachCreditAndReliefOnItsOwn(year: year) == [])
    }

    @Test func answersThatAddNothingSayWhy() throws {
        let result = try estimate(.init(taxYear: 2025, salaryCents: 40_000_00, tradeUnionMember: true, home: .init(serviceChargesCents: 300_00)))
        #expect(result.warnings.map(\.field) == ["data.tradeUnionMember", "data.home.serviceChargesCents"])
        #expect(result.warnings[0].message.contains("2011"))
    }

    @Test func moreTaxPaidALargerMedicalExpenseOrMoreMortgageInterestNeverLowersTheRefund() async throws {
        #expect(try await Self.checks.moreTaxPaidMedicalOrInterestNeverLowersTheRefund(count: 200, years: 2022...2026) == [])
    }

    @Test(arguments: 2022...2026)
    func theMortgageInterestCreditOfEachYear(_ year: Int) async throws {
        #expect(try await Self.checks.mortgageInterestCreditEachYear(year: year) == [])
    }

    @Test func theMortgageCreditsBalanceEdgesNoRiseAndMissingFigures() async throws {
        #expect(try await Self.checks.mortgageInterestEdges() == [])
    }

    @Test func theMortgageCreditTakesTaxOnlyToZeroAndACoupleGetsOne() async throws {
        #expect(try await Self.checks.mortgageCreditOnlyDownToZeroAndOncePerHome() == [])
    }

    @Test func aYearThatEndsOutOfWorkGetsTheRefundOfItsActualPayAndTax() async throws {
        #expect(try await Self.checks.partYearUnemployment() == [])
    }

    @Test func badAnswersAreInvalidNamingTheField() async {
        #expect(await Self.checks.badAnswersAreInvalidNamingTheField(window: 2022...2026) == [])
    }

    @Test func theChecksNoticeAWrongEstimator() async throws {
        let centOff = RefundEstimateChecks(rules: Self.estimator.rules) { scenario in
            var estimate = try Self.estimator.estimate(scenario, today: Self.today)
            estimate.taxDueCents += 1
            return estimate
        }
        #expect(try await centOff.workedExamples() == [
            "28,000: tax due 185001, not 1,850 (5,600 less credits 3,750)", "43,200: tax due 513001, not 5,130",
        ])
        let forgetsMedical = RefundEstimateChecks(rules: Self.estimator.rules) { scenario in
            var scenario = scenario
            scenario.expenses?.medicalCents = nil
            return try Self.estimator.estimate(scenario, today: Self.today)
        }
        #expect(try await forgetsMedical.eachCreditAndReliefOnItsOwn(year: 2024) == ["2024, 20% of medical expenses: saves 0 cents, not 20000"])
        let fullRiseIn2026 = RefundEstimateChecks(rules: Self.estimator.rules) { scenario in
            var scenario = scenario
            if scenario.taxYear == 2026, let interest = scenario.home?.mortgage?.interestPaidCents, let in2022 = scenario.home?.mortgage?.interest2022Cents {
                scenario.home?.mortgage?.interestPaidCents = interest + (interest - in2022)
            }
            return try Self.estimator.estimate(scenario, today: Self.today)
        }
        let doubled = try await fullRiseIn2026.mortgageInterestCreditEachYear(year: 2026)
        #expect(doubled == ["2026, interest 1700000: credit Optional(62500), not 40000", "2026, interest 1700000: saves 62500"], "\(doubled)")
    }
}
