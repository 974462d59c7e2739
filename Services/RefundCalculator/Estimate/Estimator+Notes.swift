import RefundCalculatorContract
import Foundation

/// What an estimate says beside its figures: answers that add nothing, and answers still missing.
extension Estimator {
    /// Answers that add nothing, and why (the mortgage's: `mortgageInterest`).
    static func warnings(_ s: Scenario) -> [RefundCalculator.Warning] {
        var warnings: [RefundCalculator.Warning] = []
        if s.tradeUnionMember == true {
            warnings.append(.init(field: "data.tradeUnionMember", message: "Trade union subscription relief (TCA s.472C) was abolished from 2011 and has not been brought back (Revenue Note for Guidance; Oireachtas answers of 19 March and 29 July 2025), so membership adds nothing."))
        }
        if (s.home?.serviceChargesCents ?? 0) > 0 {
            warnings.append(.init(field: "data.home.serviceChargesCents", message: "Relief for bin, refuse and water charges (TCA s.477) ended with the 2011 tax year (Revenue IT27; Oireachtas answer of 26 January 2012), so these charges add nothing."))
        }
        if (s.expenses?.otherEmploymentCents ?? 0) > 0 {
            warnings.append(.init(field: "data.expenses.otherEmploymentCents", message: "Only your profession's flat-rate expenses are counted here; other employment expenses need a claim to Revenue with receipts."))
        }
        if s.spouse != nil, s.status != .marriedTwoIncomes {
            warnings.append(.init(field: "data.spouse", message: "A spouse's or partner's income and tax count only for a jointly assessed couple with two incomes."))
        }
        return warnings
    }

    /// Answers not given that would change the estimate, most telling first.
    static func missing(_ s: Scenario, mortgageCredit: Bool) -> [String] {
        var missing: [String] = []
        func need(_ value: Any?, _ field: String) { if value == nil { missing.append(field) } }
        need(s.taxYear, "taxYear")
        need(s.taxPaidCents, "taxPaidCents")
        need(s.salaryCents, "salaryCents")
        need(s.status, "status")
        need(s.dependentChildren, "dependentChildren")
        need(s.dateOfBirth, "dateOfBirth")
        need(s.profession, "profession")
        need(s.home?.rentPaidCents, "home.rentPaidCents")
        need(s.expenses?.medicalCents, "expenses.medicalCents")
        if s.status == .marriedTwoIncomes {
            need(s.spouse?.incomeCents, "spouse.incomeCents")
            need(s.spouse?.taxPaidCents, "spouse.taxPaidCents")
        }
        if mortgageCredit, s.home?.hasMortgage ?? (s.home?.mortgage != nil) {
            let mortgage = s.home?.mortgage
            need(mortgage?.interestPaidCents, "home.mortgage.interestPaidCents")
            need(mortgage?.interest2022Cents, "home.mortgage.interest2022Cents")
            need(mortgage?.balanceEnd2022Cents, "home.mortgage.balanceEnd2022Cents")
        }
        return missing
    }
}
