import Bus
import RefundCalculatorContract
import Contracts
import Envelope
import Foundation

/// `refund-calculator.estimate.make.v1`, `refund-calculator.rules.version.v1` and
/// `refund-calculator.help.get.v1`: answers from the rules alone, for anyone, storing nothing.
struct EstimateHandlers: Sendable {
    let estimator: Estimator
    /// Today, which decides the refund window.
    let today: @Sendable () -> Date

    @Sendable
    func estimate(_ scenario: RefundCalculator.Scenario, _ context: RequestContext) async throws -> RefundCalculator.Estimate {
        try estimator.estimate(scenario, today: today())
    }

    /// The estimate of a scenario sent inside another request as `data.scenario`, or nil with its
    /// problems recorded in `validation` under that name.
    func estimate(nested scenario: RefundCalculator.Scenario, _ validation: inout Validation) throws(OperationError) -> RefundCalculator.Estimate? {
        do {
            return try estimator.estimate(scenario, today: today())
        } catch {
            guard !error.fields.isEmpty else { throw error }
            for issue in error.fields { validation.fail("data.scenario." + issue.field.dropFirst("data.".count), issue.message) }
            return nil
        }
    }

    @Sendable
    func rulesVersion(_ request: Empty, _ context: RequestContext) async throws -> RefundCalculator.Rules.Version.Response {
        let today = today()
        guard let window = estimator.rules.window(on: today) else { throw OperationError(.unavailable, "no tax-year rules cover the refund window") }
        return .init(version: estimator.rules.version, taxYears: Array(window), defaultTaxYear: try estimator.taxYear(nil, today: today))
    }

    @Sendable
    func help(_ request: RefundCalculator.Help.Get.Request, _ context: RequestContext) async throws -> RefundCalculator.Help.Get.Response {
        let rules = estimator.rules
        let year = try estimator.taxYear(request.taxYear, today: today())
        // Rendered for every year with rules when the rule book was loaded; the year is one of them.
        return .init(taxYear: year, rulesVersion: rules.version, answers: rules.helpByYear[year]!)
    }
}
