import TaxFormContract

/// What the interview knows of Social Security and Medicare tax withheld from a nonresident on an F, J,
/// M or Q visa (W-2 boxes 4 and 6).
public struct FicaFacts: Sendable, Equatable {
    /// What the employer did when asked to pay it back.
    public enum Employer: String, Sendable {
        case notAsked = "not-asked", refundedAll = "refunded-all", refundedPart = "refunded-part", refused, noAnswer = "no-answer"
    }

    /// The work was what the visa allows (on campus, CPT, OPT, Academic Training, economic hardship).
    public var authorized: Bool?
    public var employer: Employer?
    /// What the employer paid back (Form 8316 line 2).
    public var repaidCents: Int64 = 0

    public init(authorized: Bool? = nil, employer: Employer? = nil, repaidCents: Int64 = 0) {
        self.authorized = authorized
        self.employer = employer
        self.repaidCents = repaidCents
    }
}

/// Social Security and Medicare tax withheld in error: a nonresident alien on an F, J, M or Q visa owes
/// none on wages for work the visa allows (Internal Revenue Code section 3121(b)(19); IRS Publication
/// 519, chapter 8, "Students and Exchange Visitors"). The employer pays it back first; what it does not
/// is claimed from the IRS on Form 843 with Form 8316 (Publication 519, "Refund of Taxes Withheld in
/// Error"; IRS VITA, "Documentation for Form 843"). One claim for the year's employment tax, whatever
/// the number of employers: Form 843 is one per period and type of tax.
public enum FicaClaim {
    /// Boxes 4 and 6 of every W-2.
    public static func withheldCents(_ w2s: [TaxForm.W2]) -> Int64 {
        w2s.reduce(0) { $0 + ($1.socialSecurityWithheldCents ?? 0) + ($1.medicareWithheldCents ?? 0) }
    }

    /// Forms 843 and 8316 when there is something to claim, and what the student should know either way.
    /// `exempt`: a nonresident on an F, J, M or Q visa.
    static func compute(_ facts: ReturnFacts, exempt: Bool) -> (forms: [TaxForm.ComputedForm], notes: [String]) {
        let withheld = withheldCents(facts.w2s)
        guard exempt, withheld > 0 else { return ([], []) }
        let amount = "$" + ReturnDocuments.cents(withheld)
        switch (facts.fica.authorized, facts.fica.employer) {
        case (false, _):
            return ([], ["Social Security and Medicare tax is owed on work your visa does not allow: the \(amount) withheld stays withheld."])
        case (true, .notAsked?):
            return ([], ["Ask your employer to pay back the \(amount) of Social Security and Medicare tax withheld (W-2 boxes 4 and 6): "
                + "nonresidents on an F, J, M or Q visa do not owe it. If they refuse or do not answer, say so here and Melon prepares Forms 843 and 8316 to claim it from the IRS."])
        case (true, .refundedAll?):
            return ([], [])
        case (true, let employer?):
            let repaid = employer == .refundedPart ? min(facts.fica.repaidCents, withheld) : 0
            let claimed = withheld - repaid
            guard claimed > 0 else { return ([], []) }
            var claim = ReturnCalculator.Lines(), information = ReturnCalculator.Lines()
            claim.add("2", "Amount to be refunded: Social Security and Medicare tax withheld in error", cents: claimed,
                      rule: "W-2 boxes 4 and 6 of every W-2" + (repaid > 0 ? " minus what the employer paid back" : ""))
            information.add("2", "Amount your employer paid back", cents: repaid, rule: "your answer")
            return ([.init(form: .f843, lines: claim.lines), .init(form: .f8316, lines: information.lines)],
                    ["Forms 843 and 8316 claim back $\(ReturnDocuments.cents(claimed)) of Social Security and Medicare tax withheld in error. "
                        + "Mail them with their attachments by themselves, not with the return: the filing instructions list both."])
        default:
            return ([], ["Social Security or Medicare tax was withheld (W-2 box 4 or 6): as a nonresident on an F, J, M or Q visa you do not owe it on work your visa allows. "
                + "The questions on Social Security and Medicare lead to the claim."])
        }
    }
}
