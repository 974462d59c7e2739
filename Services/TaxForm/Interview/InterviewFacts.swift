import Foundation
import TaxFormContract

/// What the service derives from the answers: the residency and return facts, and the named facts
/// question conditions use.
public enum InterviewFacts {
    /// Known from the deciding answers, before the decision.
    static let decisionFacts: Set<String> = [
        "exemptVisa", "student", "teacher", "meetsSubstantialPresence", "residencyMayStartThisYear", "belowPresenceNotExempt",
    ]
    /// Known once the forms are decided.
    static let returnFacts: Set<String> = ["resident", "nonresident", "needs8843", "needsReturn", "treatyAvailable", "ficaWithheld"]

    public static func residency(_ answers: TaxForm.Answers) -> ResidencyFacts {
        var facts = ResidencyFacts()
        facts.usCitizen = answers.bool("citizen") ?? false
        facts.greenCard = switch answers.text("greenCard") {
        case "all-year": .allYear
        case "part-of-year": .partOfYear
        default: .none
        }
        facts.visa = answers.visa("visa") ?? .other
        if answers.bool("visa.changed") == true {
            facts.visaBeforeChange = answers.visa("visa.before")
            facts.daysAfterChange = answers.count("days.afterChange")
        }
        facts.priorVisas = (1...6).map { answers.visa("visa.prior\($0)") ?? .none }
        facts.earlierExemptYears = answers.count("visa.earlierYears") ?? 0
        facts.days = ["days.thisYear", "days.lastYear", "days.twoYearsAgo"].map { answers.count($0) ?? 0 }
        facts.presentOnJanuary1 = answers.bool("days.januaryFirst")
        facts.claimsCloserConnection = answers.bool("closerConnection") ?? false
        facts.makesFirstYearChoice = answers.bool("firstYearChoice") ?? false
        facts.hasUSIncome = answers.bool("income.any") ?? false
        return facts
    }

    public static func returnFacts(_ answers: TaxForm.Answers, w2s: [TaxForm.W2]) -> ReturnFacts {
        var facts = ReturnFacts()
        facts.filingStatus = answers.bool("filing.married") == true ? .marriedSeparately : .single
        facts.w2s = w2s
        facts.scholarshipCents = answers.cents("income.scholarship") ?? 0
        facts.scholarshipWithheldCents = answers.cents("income.scholarshipWithheld") ?? 0
        facts.interestCents = answers.cents("income.interest") ?? 0
        if answers.bool("treaty.claim") == true, let country = answers.text("treaty.country") {
            facts.treaty = .init(
                country: country, arrivalYear: answers.text("treaty.arrivalDate").flatMap { Int($0.prefix(4)) },
                priorMonths: answers.count("treaty.priorMonths"))
        }
        facts.visa = answers.visa("visa.before") ?? answers.visa("visa")
        facts.fica = .init(
            authorized: answers.bool("fica.authorized"), employer: answers.text("fica.employer").flatMap(FicaFacts.Employer.init(rawValue:)),
            repaidCents: answers.cents("fica.repaid") ?? 0)
        return facts
    }

    /// The named facts true before the decision.
    static func beforeDecision(_ answers: TaxForm.Answers, year: Int) -> Set<String> {
        let residency = residency(answers)
        var facts: Set<String> = []
        let visa = residency.visaBeforeChange ?? residency.visa
        if ResidencyTest.isExemptType(visa) { facts.insert("exemptVisa") }
        if ResidencyTest.isStudent(visa) { facts.insert("student") }
        if visa == .jScholar { facts.insert("teacher") }
        let presence = ResidencyTest.presence(residency, year: year)
        if presence.meets { facts.insert("meetsSubstantialPresence") }
        if presence.mayStartThisYear { facts.insert("residencyMayStartThisYear") }
        if answers["visa"] != nil, answers["days.thisYear"] != nil, !presence.meets, !presence.exempt[0] { facts.insert("belowPresenceNotExempt") }
        return facts
    }

    /// The named facts true once `decision` is made.
    static func afterDecision(_ decision: TaxForm.Decision, answers: TaxForm.Answers, w2s: [TaxForm.W2], rules: TaxYearRules) -> Set<String> {
        var facts: Set<String> = []
        switch decision.residency {
        case .resident: facts.insert("resident")
        case .nonresident: facts.insert("nonresident")
        case .unsupported: break
        }
        if decision.forms.contains(.f8843) { facts.insert("needs8843") }
        if decision.forms.contains(.f1040) || decision.forms.contains(.f1040NR) { facts.insert("needsReturn") }
        let visa = answers.visa("visa.before") ?? answers.visa("visa") ?? .other
        // A student article's benefit: a nonresident's, or a resident alien's where the treaty keeps it
        // from the saving clause (China).
        if ResidencyTest.isStudent(visa), let country = answers.text("treaty.country"), let treaty = rules.treaty(country),
           decision.residency == .nonresident || (decision.residency == .resident && treaty.residentAliens != nil) {
            facts.insert("treatyAvailable")
        }
        if decision.residency == .nonresident, ResidencyTest.isExemptType(visa), FicaClaim.withheldCents(w2s) > 0 { facts.insert("ficaWithheld") }
        return facts
    }
}

extension TaxForm.Answers {
    func bool(_ id: String) -> Bool? { if case .bool(let value) = self[id] { value } else { nil } }
    func text(_ id: String) -> String? { if case .text(let value) = self[id] { value } else { nil } }
    func cents(_ id: String) -> Int64? { if case .integer(let value) = self[id] { value } else { nil } }
    func count(_ id: String) -> Int? { cents(id).map { Int(clamping: $0) } }
    func visa(_ id: String) -> TaxForm.Visa? { text(id).flatMap(TaxForm.Visa.init(rawValue:)) }
}
