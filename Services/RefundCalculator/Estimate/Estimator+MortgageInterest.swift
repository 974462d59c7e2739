import RefundCalculatorContract
import Foundation

extension Estimator {
    /// The mortgage answers, checked: nil where not given.
    struct Mortgage {
        /// The user said the home has a mortgage (`hasMortgage` true), or that it has none (false).
        var declared: Bool
        var declined: Bool
        var interest: Int64?
        var interest2022: Int64?
        var balanceEnd2022: Int64?
    }

    /// The Mortgage Interest Tax Credit (`rules.mortgageInterest`, ../shared/reference/ireland-paye.md):
    /// the rate on the share of the rise in interest over 2022 that counts, up to the cap, for a
    /// balance on 31 December 2022 within the range. Either the credit's line, or a warning saying
    /// why there is none, or neither while an answer it needs is missing (`missing` names it).
    static func mortgageInterest(_ mortgage: Mortgage, rules: TaxYearRules, in book: RuleBook)
        -> (credit: Line?, warning: RefundCalculator.Warning?)
    {
        let figures = mortgage.interest != nil || mortgage.interest2022 != nil || mortgage.balanceEnd2022 != nil
        guard mortgage.declared || figures else { return (nil, nil) }
        guard !mortgage.declined else {
            return (nil, .init(field: "data.home.hasMortgage", message: "You said the home has no mortgage, so the mortgage figures are not counted."))
        }
        guard let credit = rules.mortgageInterest else {
            let years = book.years.values.filter { $0.mortgageInterest != nil }.map(\.year).sorted()
            let given = years.first.map { first in first == years.last ? " (it is given for \(first))" : " (it is given for \(first) to \(years.last!))" } ?? ""
            return (nil, .init(field: figures ? "data.home.mortgage" : "data.home.hasMortgage",
                               message: "There is no Mortgage Interest Tax Credit for \(rules.year)\(given), so mortgage interest does not change this estimate."))
        }
        guard let interest = mortgage.interest, let interest2022 = mortgage.interest2022, let balance = mortgage.balanceEnd2022 else { return (nil, nil) }
        let from = cents(credit.balanceFrom), to = cents(credit.balanceTo)
        guard (from...to).contains(balance) else {
            return (nil, .init(field: "data.home.mortgage.balanceEnd2022Cents",
                               message: "The Mortgage Interest Tax Credit is only for a mortgage that had \(euros(from)) to \(euros(to)) outstanding on 31 December 2022; \(euros(balance)) is outside that range, so there is no credit (Revenue, 'Mortgage Interest Tax Credit')."))
        }
        let rise = interest - interest2022
        guard rise > 0 else {
            return (nil, .init(field: "data.home.mortgage.interestPaidCents",
                               message: "The Mortgage Interest Tax Credit counts the rise in interest over 2022; \(euros(interest)) paid in \(rules.year) is no more than \(euros(interest2022)) paid in 2022, so there is no credit (Revenue, 'Mortgage Interest Tax Credit')."))
        }
        let share = rate(rise, credit.increaseShare), cap = cents(credit.countedCap)
        let counted = min(share, cap)
        let percent = EuroText.percent(basisPoints: credit.rate), part = "\(credit.countedPart) \(euros(rise)) rise over 2022 interest"
        let label = counted == rise ? "Mortgage interest credit (\(percent) of \(part))"
            : "Mortgage interest credit (\(percent) of \(euros(counted)): \(part)\(share > cap ? ", counted up to \(euros(cap))" : ""))"
        return (Line(kind: .credit, label: label, amountCents: rate(counted, credit.rate), rule: credit.source), nil)
    }
}
