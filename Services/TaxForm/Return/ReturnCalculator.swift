import TaxFormContract

/// What the return is computed from, as the interview collects it. Amounts in cents.
public struct ReturnFacts: Sendable, Equatable {
    public var filingStatus: TaxForm.FilingStatus = .single
    public var w2s: [TaxForm.W2] = []
    /// Taxable scholarship or fellowship grants not on a W-2 (1042-S income code 16 for nonresidents).
    public var scholarshipCents: Int64 = 0
    /// Federal tax withheld on them (1042-S).
    public var scholarshipWithheldCents: Int64 = 0
    /// US bank interest (taxable for residents only).
    public var interestCents: Int64 = 0
    /// The treaty benefit the student claims, when they claim one.
    public var treaty: ClaimedTreaty?
    /// The visa (the one before a change during the year, when it changed).
    public var visa: TaxForm.Visa?
    /// Social Security and Medicare tax withheld, for a nonresident on an F, J, M or Q visa.
    public var fica = FicaFacts()

    public init() {}

    /// A student treaty benefit claimed: the country (ISO code), the year of first arrival for the
    /// studies, the months claimed in earlier years.
    public struct ClaimedTreaty: Sendable, Equatable {
        public var country: String
        public var arrivalYear: Int?
        public var priorMonths: Int?

        public init(country: String, arrivalYear: Int? = nil, priorMonths: Int? = nil) {
            self.country = country
            self.arrivalYear = arrivalYear
            self.priorMonths = priorMonths
        }
    }

    var wagesCents: Int64 { w2s.reduce(0) { $0 + $1.wagesCents } }
    var withheldCents: Int64 { w2s.reduce(0) { $0 + $1.federalWithheldCents } }
    var stateWithheldCents: Int64 { w2s.reduce(0) { $0 + ($1.states ?? []).reduce(0) { $0 + ($1.withheldCents ?? 0) } } }
}

/// The computed return: the forms with their lines, the refund or the amount owed, and what the
/// return leaves out.
public struct ComputedReturn: Sendable, Equatable {
    public var forms: [TaxForm.ComputedForm]
    /// Positive: a refund; negative: owed.
    public var refundCents: Int64
    public var notes: [String]
}

/// Form 1040 (with Schedule 1) for residents and Form 1040-NR for nonresidents, line by line. Sums of
/// amounts from documents are added in cents and rounded once; every other line is computed from the
/// whole-dollar lines above it, as the forms are filled in (IRS: round off the total, not each part).
public enum ReturnCalculator {
    public static func compute(_ facts: ReturnFacts, residency: TaxForm.Residency, rules: TaxYearRules) -> ComputedReturn {
        residency == .resident ? resident(facts, rules: rules) : nonresident(facts, rules: rules)
    }

    static func resident(_ facts: ReturnFacts, rules: TaxYearRules) -> ComputedReturn {
        var form = Lines(), schedule1 = Lines()
        let (treaty, treatyNotes) = benefit(facts, resident: true, rules: rules)
        var notes = treatyNotes
        let wages = form.add("1a", "Wages (W-2 box 1)", cents: facts.wagesCents, rule: "the sum of box 1 of every W-2")
        let z = form.add("1z", "Total wages", dollars: wages, rule: "line 1a (lines 1b-1h are not covered)")
        let interest = form.add("2b", "Taxable interest", cents: facts.interestCents, rule: "US bank interest")
        // A resident alien reports the wages whole and takes the treaty's exemption off on Schedule 1
        // line 8z, in parentheses, with Form 8833 (Publication 519, chapter 9, "Resident aliens").
        var exemptCents: Int64 = 0
        if let treaty, treaty.benefit == .wagesExempt, let limit = treaty.limit { exemptCents = min(facts.wagesCents, limit * 100) }
        var other: Int64 = 0, disclosure: [TaxForm.ComputedForm] = []
        if facts.scholarshipCents > 0 || exemptCents > 0 {
            var sum: Int64 = 0
            if facts.scholarshipCents > 0 {
                sum += schedule1.add("8r", "Scholarship and fellowship grants not reported on a W-2", cents: facts.scholarshipCents, rule: "taxable scholarship and fellowship grants")
            }
            if let treaty, exemptCents > 0 {
                sum += schedule1.add("8z", "Other income: exempt income, \(treaty.country) treaty article \(treaty.article) (Form 8833)", cents: -exemptCents,
                                     rule: "wages up to \(treaty.limit!) exempt under \(treaty.country) article \(treaty.article), kept for a resident alien by the treaty (\(treaty.source))")
                var lines = Lines()
                lines.add("6", "Wages exempt under the treaty (Schedule 1 line 8z)", cents: exemptCents, rule: "Schedule 1 line 8z")
                disclosure = [.init(form: .f8833, lines: lines.lines)]
            }
            let total = schedule1.add("9", "Total other income", dollars: sum, rule: "lines 8r and 8z")
            other = schedule1.add("10", "Additional income", dollars: total, rule: "Schedule 1 line 9 (lines 1-7 are not covered)")
        }
        form.add("8", "Additional income from Schedule 1, line 10", dollars: other, rule: "Schedule 1 line 10")
        let total = form.add("9", "Total income", dollars: z + interest + other, rule: "lines 1z, 2b and 8")
        let adjustments = form.add("10", "Adjustments to income", dollars: 0, rule: "none are covered")
        let agi = form.add("11", "Adjusted gross income", dollars: total - adjustments, rule: "line 9 minus line 10")
        let standard = form.add("12", "Standard deduction", dollars: rules.standardDeduction[facts.filingStatus], rule: "standard deduction \(rules.year), \(facts.filingStatus.rawValue) (\(rules.standardDeduction.source))")
        let deductions = form.add("14", "Total deductions", dollars: standard, rule: "line 12 plus line 13 (no qualified business income deduction)")
        let taxable = form.add("15", "Taxable income", dollars: max(0, agi - deductions), rule: "line 11 minus line 14, not below zero")
        let tax = taxLine(&form, taxable: taxable, status: facts.filingStatus, rules: rules)
        form.add("18", "Tax plus Schedule 2 line 3", dollars: tax, rule: "line 16 (no Schedule 2 taxes are covered)")
        form.add("22", "Tax after credits", dollars: tax, rule: "line 18 minus line 21 (no credits are covered)")
        let totalTax = form.add("24", "Total tax", dollars: tax, rule: "line 22 (no other taxes are covered)")
        let withheld = form.add("25a", "Federal income tax withheld, Forms W-2", cents: facts.withheldCents, rule: "the sum of box 2 of every W-2")
        form.add("25d", "Total withholding", dollars: withheld, rule: "line 25a")
        let payments = form.add("33", "Total payments", dollars: withheld, rule: "line 25d (no estimated payments or credits are covered)")
        settle(&form, payments: payments, totalTax: totalTax)
        let forms = [TaxForm.ComputedForm(form: .f1040, lines: form.lines)]
            + (schedule1.lines.isEmpty ? [] : [TaxForm.ComputedForm(form: .f1040Schedule1, lines: schedule1.lines)]) + disclosure
        return ComputedReturn(forms: forms, refundCents: (payments - totalTax) * 100, notes: notes)
    }

    static func nonresident(_ facts: ReturnFacts, rules: TaxYearRules) -> ComputedReturn {
        var form = Lines()
        let (treaty, treatyNotes) = benefit(facts, resident: false, rules: rules)
        var notes = treatyNotes
        var exemptCents: Int64 = 0
        if let treaty, treaty.benefit == .wagesExempt, let limit = treaty.limit {
            exemptCents = min(facts.wagesCents, limit * 100)
        }
        let wages = form.add("1a", "Wages (W-2 box 1) not exempt by a treaty", cents: facts.wagesCents - exemptCents, rule: exemptCents > 0
            ? "the sum of box 1 of every W-2 minus the wages exempt under \(treaty!.country) article \(treaty!.article)" : "the sum of box 1 of every W-2")
        if let treaty, exemptCents > 0 {
            form.add("1k", "Total income exempt by a treaty (Schedule OI)", cents: exemptCents, rule: "wages up to \(treaty.limit!) under \(treaty.country) article \(treaty.article) (\(treaty.source))")
        }
        let z = form.add("1z", "Total effectively connected wages", dollars: wages, rule: "line 1a (lines 1b-1h are not covered)")
        let other = form.add("8", "Additional income from Schedule 1, line 10", cents: facts.scholarshipCents, rule: "taxable scholarship and fellowship grants (Schedule 1 line 8r)")
        let total = form.add("9", "Total effectively connected income", dollars: z + other, rule: "lines 1z and 8")
        let adjustments = form.add("10", "Adjustments to income", dollars: 0, rule: "none are covered")
        let agi = form.add("11", "Adjusted gross income", dollars: total - adjustments, rule: "line 9 minus line 10")
        let itemized = formDollars(facts.stateWithheldCents)
        let deduction: Int64
        if let treaty, treaty.benefit == .standardDeduction {
            let standard = rules.standardDeduction[facts.filingStatus]
            deduction = form.add("12", "Standard deduction (treaty) or itemized deductions", dollars: max(standard, itemized),
                                 rule: standard >= itemized ? "the standard deduction under \(treaty.country) article \(treaty.article) (\(treaty.source))" : "itemized: state and local income tax withheld (Schedule A)")
        } else {
            deduction = form.add("12", "Itemized deductions (Schedule A)", dollars: itemized, rule: "state and local income tax withheld, W-2 box 17 (Schedule A line 1a); no standard deduction for a nonresident")
        }
        let taxable = form.add("15", "Taxable income", dollars: max(0, agi - deduction), rule: "line 11 minus line 14 (line 12; no qualified business income deduction)")
        let tax = taxLine(&form, taxable: taxable, status: facts.filingStatus, rules: rules)
        let totalTax = form.add("24", "Total tax", dollars: tax, rule: "line 16 (no tax on income not effectively connected, Schedule NEC, and no other taxes are covered)")
        let w2 = form.add("25a", "Federal income tax withheld, Forms W-2", cents: facts.withheldCents, rule: "the sum of box 2 of every W-2")
        let scholarship = form.add("25g", "Federal income tax withheld, Forms 1042-S", cents: facts.scholarshipWithheldCents, rule: "tax withheld on the scholarship (1042-S)")
        let payments = form.add("33", "Total payments", dollars: w2 + scholarship, rule: "lines 25a and 25g")
        settle(&form, payments: payments, totalTax: totalTax)
        if facts.interestCents > 0 { notes.append("US bank interest is not taxable for a nonresident alien and is left off the return.") }
        let fica = FicaClaim.compute(facts, exempt: facts.visa.map(ResidencyTest.isExemptType) ?? false)
        return ComputedReturn(forms: [.init(form: .f1040NR, lines: form.lines)] + fica.forms, refundCents: (payments - totalTax) * 100, notes: notes + fica.notes)
    }

    /// The claimed treaty benefit when it covers this return, and what the student should know: why a
    /// claim gives nothing (the saving clause, the years past), or the treaty's own condition.
    static func benefit(_ facts: ReturnFacts, resident: Bool, rules: TaxYearRules) -> (TaxYearRules.Treaty?, [String]) {
        guard let claim = facts.treaty, let treaty = rules.treaty(claim.country) else { return (nil, []) }
        let named = "\(claim.country) treaty article \(treaty.article)"
        if resident && treaty.residentAliens == nil {
            return (nil, ["The treaty's saving clause keeps \(named) from resident aliens: the return claims none."])
        }
        if let years = treaty.years {
            guard let arrival = claim.arrivalYear else {
                return (nil, ["\(named) covers \(years) years from your first arrival; without that date the return claims none."])
            }
            guard arrival <= rules.year else {
                return (nil, ["Your first arrival (\(arrival)) is after \(rules.year): \(named) cannot cover \(rules.year), so the return claims none."])
            }
            guard treaty.covers(rules.year, arrivalYear: arrival) else {
                return (nil, ["\(named) covers \(years) calendar years from your arrival in \(arrival), \(arrival)-\(arrival + years - 1): \(rules.year) is past them, so the return claims none."])
            }
        }
        return (treaty, treaty.note.map { [$0] } ?? [])
    }

    @discardableResult
    static func taxLine(_ form: inout Lines, taxable: Int64, status: TaxForm.FilingStatus, rules: TaxYearRules) -> Int64 {
        let cents = IncomeTax.line16(taxableDollars: taxable, status: status, rules: rules)
        let rule = taxable < rules.taxTable.below
            ? "Tax Table: the tax on the midpoint of the row \(IncomeTax.tableRow(taxable).lowerBound)-\(IncomeTax.tableRow(taxable).upperBound) (\(rules.taxTable.source))"
            : "Tax Computation Worksheet: the \(rules.year) rate schedule, \(status.rawValue) (\(rules.brackets.source))"
        return form.add("16", "Tax", cents: cents, rule: rule)
    }

    static func settle(_ form: inout Lines, payments: Int64, totalTax: Int64) {
        if payments > totalTax {
            let overpaid = form.add("34", "Amount overpaid", dollars: payments - totalTax, rule: "line 33 minus line 24")
            form.add("35a", "Refund", dollars: overpaid, rule: "line 34 (none applied to next year's tax)")
        } else {
            form.add("37", "Amount you owe", dollars: totalTax - payments, rule: "line 24 minus line 33")
        }
    }

    /// A form's lines as they are filled in.
    struct Lines {
        var lines: [TaxForm.Line] = []

        /// A line summing amounts from documents: exact cents, shown rounded. Returns the whole dollars.
        @discardableResult
        mutating func add(_ line: String, _ label: String, cents: Int64, rule: String) -> Int64 {
            let dollars = formDollars(cents)
            lines.append(.init(line: line, label: label, cents: cents, dollars: dollars, rule: rule))
            return dollars
        }

        /// A line computed from whole-dollar lines.
        @discardableResult
        mutating func add(_ line: String, _ label: String, dollars: Int64, rule: String) -> Int64 {
            lines.append(.init(line: line, label: label, cents: dollars * 100, dollars: dollars, rule: rule))
            return dollars
        }
    }
}
