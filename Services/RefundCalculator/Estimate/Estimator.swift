import RefundCalculatorContract
import Contracts
import Envelope
import Foundation

/// An estimate from a user's answers and the year's rules, in integer cents, in Revenue's order
/// (../shared/reference/ireland-paye.md, "Order of calculation"): taxable income, gross tax by band,
/// less credits (never below zero), against the tax paid.
public struct Estimator: Sendable {
    public typealias Scenario = RefundCalculator.Scenario
    public typealias Estimate = RefundCalculator.Estimate

    /// A line as the steps below make it, with its rule's text; the estimate names each text once.
    struct Line {
        var kind: RefundCalculator.Line.Kind
        var label: String
        var amountCents: Int64
        var rule: String
    }

    public let rules: RuleBook

    public init(rules: RuleBook) {
        self.rules = rules
    }

    public func estimate(_ scenario: Scenario, today: Date = Date()) throws(OperationError) -> Estimate {
        let (year, facts) = try check(scenario, today: today)
        let rules = rules.years[year]!
        var lines: [Line] = []
        let mortgage = Self.mortgageInterest(facts.mortgage, rules: rules, in: self.rules)
        let warnings = Self.warnings(scenario) + [mortgage.warning].compactMap { $0 }

        // 1. Income and the deductions at the marginal rate.
        lines.append(Line(kind: .income, label: "Your salary", amountCents: facts.salary, rule: "PAYE pay before tax"))
        if facts.otherIncome > 0 { lines.append(Line(kind: .income, label: "Your other income", amountCents: facts.otherIncome, rule: "taxable income")) }
        if facts.jobseekersBenefit > 0 {
            lines.append(Line(kind: .income, label: "Jobseeker's Benefit (the taxable part)", amountCents: facts.jobseekersBenefit,
                              rule: rules.socialWelfare.source))
        }
        if facts.spouseIncome > 0 {
            lines.append(Line(kind: .income, label: "Your spouse's or partner's income", amountCents: facts.spouseIncome, rule: "joint assessment"))
        }
        var deductions: Int64 = 0
        for (who, profession, income) in [("Your", facts.profession, facts.salary), ("Your spouse's", facts.spouseProfession, facts.spouseIncome)] {
            guard let profession, profession.euros > 0, income > 0 else { continue }
            let amount = min(Self.cents(profession.euros), income)
            deductions += amount
            lines.append(Line(kind: .deduction, label: "\(who) flat-rate expenses (\(profession.name))", amountCents: amount,
                              rule: rules.reliefs.flatRateExpensesSource))
        }
        if facts.nursingHome > 0 {
            deductions += facts.nursingHome
            lines.append(Line(kind: .deduction, label: "Nursing home fees", amountCents: facts.nursingHome, rule: rules.reliefs.nursingHomeSource))
        }
        let taxable = max(0, facts.ownIncome + facts.spouseIncome - deductions)

        // 2-3. Gross tax by band, less credits. A couple with two incomes and children gets the band
        // increase or the Home Carer credit, whichever leaves less tax (they cannot be combined).
        let options = [false, true].compactMap { homeCarer in
            self.tax(taxable: taxable, facts: facts, rules: rules, homeCarer: homeCarer, mortgageCredit: mortgage.credit)
        }
        let chosen = options.min { $0.due < $1.due }!
        lines += chosen.lines
        lines.append(Line(kind: .taxDue, label: "Income tax due", amountCents: chosen.due, rule: "gross tax less credits, not below zero (credits are not refundable)"))

        // 4. Against what was paid.
        let paid = facts.taxPaid + facts.spouseTaxPaid
        lines.append(Line(kind: .taxPaid, label: "Income tax paid", amountCents: paid, rule: "the employment detail summary"))
        // Jobseeker's Benefit is not liable to USC (rules.socialWelfare).
        let usc = Self.usc(facts.salary + facts.otherIncome, age: facts.age, rules: rules)
            + (facts.spouseIncome > 0 ? Self.usc(facts.spouseIncome, age: facts.spouseAge, rules: rules) : 0)
        lines.append(Line(kind: .usc, label: "Universal Social Charge (not part of the refund)", amountCents: usc, rule: rules.usc.source))
        let (published, sources) = Self.publish(lines)
        return Estimate(
            taxYear: year, rulesVersion: self.rules.version, currency: "EUR", refundCents: paid - chosen.due, taxDueCents: chosen.due, uscCents: usc,
            lines: published, sources: sources, warnings: warnings, missing: Self.missing(scenario, mortgageCredit: rules.mortgageInterest != nil))
    }

    /// The lines as the contract carries them: each rule's text once, in order of first use.
    static func publish(_ lines: [Line]) -> (lines: [RefundCalculator.Line], sources: [String]) {
        var sources: [String] = []
        let published = lines.map { line in
            let source = sources.firstIndex(of: line.rule) ?? sources.count
            if source == sources.count { sources.append(line.rule) }
            return RefundCalculator.Line(kind: line.kind, label: line.label, amountCents: line.amountCents, source: source)
        }
        return (published, sources)
    }

    /// The answers as amounts, checked; every problem named at once.
    struct Facts {
        var status: RefundCalculator.Status
        var children: Int
        var salary: Int64
        var otherIncome: Int64
        /// The taxable part of Jobseeker's Benefit: income tax and the employee credit, not USC.
        var jobseekersBenefit: Int64
        var taxPaid: Int64
        var spouseIncome: Int64
        var spouseTaxPaid: Int64
        var profession: FlatRateExpenses.Profession?
        var spouseProfession: FlatRateExpenses.Profession?
        /// Age reached during the tax year.
        var age: Int?
        var spouseAge: Int?
        var rent: Int64
        var medical: Int64
        var nursingHome: Int64
        var tuition: RefundCalculator.Scenario.Tuition?
        var mortgage: Mortgage

        var married: Bool { status == .marriedOneIncome || status == .marriedTwoIncomes }
        /// The claimant's income for income tax.
        var ownIncome: Int64 { salary + otherIncome + jobseekersBenefit }
        /// The claimant's income taxed under PAYE, which the employee credit is limited by.
        var payeIncome: Int64 { salary + jobseekersBenefit }
    }

    func check(_ s: Scenario, today: Date) throws(OperationError) -> (Int, Facts) {
        var validation = Validation()
        let year = try taxYear(s.taxYear, today: today, &validation)
        func amount(_ value: Int64?, _ field: String) -> Int64 {
            guard let value else { return 0 }
            validation.check(value >= Scenario.Bounds.cents.lowerBound, field, "must not be negative")
            validation.check(value <= Scenario.Bounds.cents.upperBound, field, "must be at most 100,000,000.00")
            return max(0, value)
        }
        func profession(_ id: String?, _ field: String) -> FlatRateExpenses.Profession? {
            guard let id else { return nil }
            let found = rules.flatRateExpenses.professions.first { $0.id == id }
            validation.check(found != nil, field, "must be one of \(rules.flatRateExpenses.professions.map(\.id).joined(separator: ", "))")
            return found
        }
        func age(_ text: String?, _ field: String) -> Int? {
            guard let text else { return nil }
            guard let born = RFC3339.fullDate(from: text)?.year, (1900...year).contains(born) else {
                validation.fail(field, "must be a date YYYY-MM-DD, not after the tax year")
                return nil
            }
            return year - born
        }
        let married = s.status == .marriedOneIncome || s.status == .marriedTwoIncomes
        let twoIncomes = s.status == .marriedTwoIncomes
        let childBounds = Scenario.Bounds.dependentChildren
        if let children = s.dependentChildren {
            validation.check(childBounds.contains(children), "data.dependentChildren", "must be from \(childBounds.lowerBound) to \(childBounds.upperBound)")
        }
        var facts = Facts(
            status: s.status ?? .single, children: min(max(s.dependentChildren ?? 0, childBounds.lowerBound), childBounds.upperBound),
            salary: amount(s.salaryCents, "data.salaryCents"), otherIncome: amount(s.otherIncomeCents, "data.otherIncomeCents"),
            jobseekersBenefit: amount(s.jobseekersBenefitCents, "data.jobseekersBenefitCents"),
            taxPaid: amount(s.taxPaidCents, "data.taxPaidCents"),
            spouseIncome: amount(s.spouse?.incomeCents, "data.spouse.incomeCents"),
            spouseTaxPaid: amount(s.spouse?.taxPaidCents, "data.spouse.taxPaidCents"),
            profession: profession(s.profession, "data.profession"), spouseProfession: profession(s.spouse?.profession, "data.spouse.profession"),
            age: age(s.dateOfBirth, "data.dateOfBirth"), spouseAge: age(s.spouse?.dateOfBirth, "data.spouse.dateOfBirth"),
            rent: amount(s.home?.rentPaidCents, "data.home.rentPaidCents"), medical: amount(s.expenses?.medicalCents, "data.expenses.medicalCents"),
            nursingHome: amount(s.expenses?.nursingHomeCents, "data.expenses.nursingHomeCents"), tuition: s.expenses?.tuition,
            mortgage: Mortgage(
                declared: s.home?.hasMortgage == true, declined: s.home?.hasMortgage == false,
                interest: s.home?.mortgage?.interestPaidCents.map { amount($0, "data.home.mortgage.interestPaidCents") },
                interest2022: s.home?.mortgage?.interest2022Cents.map { amount($0, "data.home.mortgage.interest2022Cents") },
                balanceEnd2022: s.home?.mortgage?.balanceEnd2022Cents.map { amount($0, "data.home.mortgage.balanceEnd2022Cents") }))
        _ = amount(s.home?.serviceChargesCents, "data.home.serviceChargesCents")
        _ = amount(s.expenses?.otherEmploymentCents, "data.expenses.otherEmploymentCents")
        if let tuition = s.expenses?.tuition { _ = amount(tuition.feesCents, "data.expenses.tuition.feesCents") }
        try validation.finish()
        // Spouse answers count for a jointly assessed couple only; with one income, the spouse has none.
        if !twoIncomes {
            facts.spouseIncome = 0
            facts.spouseTaxPaid = 0
            facts.spouseProfession = nil
        }
        if !married { facts.spouseAge = nil }
        return (year, facts)
    }

    /// The tax year an answer is for: `requested`, which must be in the refund window, or else
    /// last year (the window's newest year with rules, if last year has none).
    public func taxYear(_ requested: Int?, today: Date) throws(OperationError) -> Int {
        var validation = Validation()
        let year = try taxYear(requested, today: today, &validation)
        try validation.finish()
        return year
    }

    func taxYear(_ requested: Int?, today: Date, _ validation: inout Validation) throws(OperationError) -> Int {
        guard let window = rules.window(on: today) else { throw OperationError(.unavailable, "no tax-year rules cover the refund window") }
        let lastYear = RuleBook.taxYear(of: today) - 1
        guard let requested else { return window.contains(lastYear) ? lastYear : window.upperBound }
        if !window.contains(requested) {
            validation.fail("data.taxYear", "must be from \(window.lowerBound) to \(window.upperBound) (the refund window)")
            return window.upperBound
        }
        return requested
    }

    /// Gross tax and credits for one choice between the two-income band increase and the Home Carer
    /// credit; nil when `homeCarer` does not apply.
    func tax(taxable: Int64, facts: Facts, rules: TaxYearRules, homeCarer: Bool, mortgageCredit: Line?) -> (due: Int64, lines: [Line])? {
        let cut = rules.standardRateCutOff, credits = rules.credits
        var carerCredit: Int64 = 0
        if homeCarer {
            guard facts.married, facts.children > 0 else { return nil }
            // The carer's own income reduces the credit by half the excess over the limit.
            let carerIncome = facts.status == .marriedTwoIncomes ? min(facts.ownIncome, facts.spouseIncome) : 0
            carerCredit = max(0, Self.cents(credits.homeCarer) - max(0, carerIncome - Self.cents(credits.homeCarerIncomeLimit)) / 2)
            if carerCredit == 0 { return nil }
        }
        var lines: [Line] = []
        var cutOff: Int64
        switch facts.status {
        case .single, .widowed, .separated:
            cutOff = Self.cents(facts.children > 0 ? cut.singleChildCarer : cut.single)
        case .marriedOneIncome:
            cutOff = Self.cents(cut.marriedOneIncome)
        case .marriedTwoIncomes:
            cutOff = Self.cents(cut.marriedOneIncome)
            if !homeCarer {
                cutOff += min(Self.cents(cut.marriedSecondIncomeIncreaseMax), min(facts.ownIncome, facts.spouseIncome))
            }
        }
        let atStandard = min(taxable, cutOff), atHigher = taxable - atStandard
        let gross = Self.rate(atStandard, rules.rates.standard) + Self.rate(atHigher, rules.rates.higher)
        lines.append(Line(kind: .band, label: "20% on \(Self.euros(atStandard)) (standard-rate band \(Self.euros(cutOff)))",
                          amountCents: Self.rate(atStandard, rules.rates.standard), rule: cut.source))
        if atHigher > 0 {
            lines.append(Line(kind: .band, label: "40% on \(Self.euros(atHigher))", amountCents: Self.rate(atHigher, rules.rates.higher), rule: rules.rates.source))
        }
        lines.append(Line(kind: .grossTax, label: "Gross income tax", amountCents: gross, rule: "the bands above"))

        func credit(_ label: String, _ amount: Int64, _ rule: String) {
            if amount > 0 { lines.append(Line(kind: .credit, label: label, amountCents: amount, rule: rule)) }
        }
        let personal = facts.married ? credits.personalMarried : (facts.status == .widowed && facts.children == 0 ? credits.widowedNoChild : credits.personalSingle)
        credit(facts.married ? "Personal credit (married or civil partners)" : facts.status == .widowed && facts.children == 0
               ? "Personal credit (widowed, no dependent child)" : "Personal credit", Self.cents(personal), credits.source)
        credit("Employee credit", min(Self.cents(credits.employee), Self.rate(facts.payeIncome, 2000)), credits.source)
        if facts.status == .marriedTwoIncomes {
            credit("Employee credit (spouse or partner)", min(Self.cents(credits.employee), Self.rate(facts.spouseIncome, 2000)), credits.source)
        }
        if !facts.married, facts.children > 0 { credit("Single person child carer credit", Self.cents(credits.singleChildCarer), credits.source) }
        if [facts.age, facts.spouseAge].contains(where: { ($0 ?? 0) >= 65 }) {
            credit("Age credit (65 or over)", Self.cents(facts.married ? credits.age65Married : credits.age65Single), credits.source)
        }
        credit("Home carer credit", carerCredit, credits.source)
        credit("Rent credit", min(Self.cents(credits.rentSingle) * (facts.married ? 2 : 1), Self.rate(facts.rent, 2000)), credits.source)
        credit("Medical expenses relief (20%)", Self.rate(facts.medical, rules.reliefs.medicalRate), rules.reliefs.medicalSource)
        if let tuition = facts.tuition {
            let r = rules.reliefs
            let disregard = Self.cents(tuition.fullTime ? r.tuitionDisregardFullTime : r.tuitionDisregardPartTime)
            credit("Tuition fees relief (20%)", Self.rate(max(0, min(tuition.feesCents, Self.cents(r.tuitionCapPerCourse)) - disregard), r.tuitionRate),
                   r.tuitionSource)
        }
        // One credit per home, however the couple is assessed (rules.mortgageInterest).
        if let mortgageCredit { lines.append(mortgageCredit) }
        let totalCredits = lines.filter { $0.kind == .credit }.reduce(0) { $0 + $1.amountCents }
        return (max(0, gross - totalCredits), lines)
    }

    /// USC on one person's income: nothing up to the exemption, else each band's rate; people aged
    /// 70 or over with income up to 60,000 pay at most 2%.
    static func usc(_ income: Int64, age: Int?, rules: TaxYearRules) -> Int64 {
        guard income > cents(rules.usc.exemptUpTo) else { return 0 }
        var total: Int64 = 0, floor: Int64 = 0
        for band in rules.usc.bands {
            let top = band.upTo.map(cents) ?? income
            let slice = max(0, min(income, top) - floor)
            let rate = (age ?? 0) >= 70 && income <= cents(60_000) ? min(band.rate, 200) : band.rate
            total += Self.rate(slice, rate)
            floor = max(floor, top)
            if income <= top { break }
        }
        return total
    }

    static func cents(_ euros: Int) -> Int64 { Int64(euros) * 100 }

    /// `amount` at `basisPoints` (2000 = 20%), rounded half up to the cent.
    static func rate(_ amount: Int64, _ basisPoints: Int) -> Int64 { (amount * Int64(basisPoints) + 5_000) / 10_000 }

    static func euros(_ cents: Int64) -> String { EuroText.format(cents: cents) }
}
