import TaxFormContract

/// What residency depends on, as the interview collects it. Every field is what the user said; the
/// interview has made sure the ones the decision needs are there.
public struct ResidencyFacts: Sendable, Equatable {
    public var usCitizen = false
    public var greenCard: GreenCard = .none
    /// The status held at the end of the year (or the whole year).
    public var visa: TaxForm.Visa = .other
    /// A status held earlier in the year, if the status changed during it.
    public var visaBeforeChange: TaxForm.Visa?
    /// Days present after the change of status, when there was one.
    public var daysAfterChange: Int?
    /// The status in each of the six prior years, the last year first (`.none`: not in the US).
    public var priorVisas: [TaxForm.Visa] = []
    /// Calendar years before those six in which the person was in the US as a student, teacher or trainee.
    public var earlierExemptYears = 0
    /// Days present this year, last year and the year before.
    public var days: [Int] = [0, 0, 0]
    /// Present in the US on January 1 in a status whose days count (asked when residency would start this year).
    public var presentOnJanuary1: Bool?
    /// Claims the closer-connection exception, or makes the first-year choice.
    public var claimsCloserConnection = false
    public var makesFirstYearChoice = false
    public var hasUSIncome = false

    public enum GreenCard: Sendable, Equatable {
        case none, allYear, partOfYear
    }

    public init() {}
}

/// The residency decision: the green card test, then the substantial presence test with exempt days
/// left out (us-student-tax.md "Substantial presence test", Pub. 519 via irs.gov), then the forms.
public enum ResidencyTest {
    /// Students (F, J student, M, Q) are exempt for their first five calendar years in those statuses.
    static let studentYears = 5
    /// Teachers and trainees (J scholar) are exempt unless exempt in 2 of the 6 prior years.
    static let teacherLookback = 6, teacherLimit = 2

    public static func decide(_ facts: ResidencyFacts, year: Int) -> TaxForm.Decision {
        var reasons: [TaxForm.Reason] = []
        if facts.usCitizen {
            reasons.append(.init(rule: "citizen", text: "US citizens file Form 1040."))
            return .init(residency: .resident, forms: [.f1040], reasons: reasons, countedDays: facts.days, weightedDaysInSixths: 0)
        }
        switch facts.greenCard {
        case .allYear:
            reasons.append(.init(rule: "green-card-test", text: "A lawful permanent resident (green card) for all of \(year) is a resident alien."))
            return .init(residency: .resident, forms: [.f1040], reasons: reasons, countedDays: facts.days, weightedDaysInSixths: 0)
        case .partOfYear:
            return stop(.dualStatus(year, "you became a lawful permanent resident during \(year)"), reasons, facts.days, 0)
        case .none: break
        }

        let presence = presence(facts, year: year, reasons: &reasons)
        let (exempt, counted, sixths, meets) = (presence.exempt, presence.counted, presence.sixths, presence.meets)
        let weighted = "\(counted[0]) + \(counted[1])/3 + \(counted[2])/6 = \(decimal(sixths)) days"
        if !meets {
            let why = counted[0] < 31 ? "\(counted[0]) counted days in \(year) are fewer than 31" : "\(weighted) are fewer than 183"
            reasons.append(.init(rule: "substantial-presence", text: "You do not meet the substantial presence test: \(why)."))
            if facts.makesFirstYearChoice {
                return stop(.firstYearChoice, reasons, counted, sixths)
            }
            let forms: [TaxForm.Form]
            let exemptNow = exempt[0] || facts.visaBeforeChange.map(Self.isExemptType) == true
            switch (facts.hasUSIncome, exemptNow) {
            case (true, true): forms = [.f1040NR, .f8843]
            case (true, false): forms = [.f1040NR]
            case (false, true): forms = [.f8843]
            case (false, false): forms = []
            }
            reasons.append(formsReason(forms, year: year, income: facts.hasUSIncome))
            return .init(residency: .nonresident, forms: forms, reasons: reasons, countedDays: counted, weightedDaysInSixths: sixths)
        }
        reasons.append(.init(rule: "substantial-presence", text: "You meet the substantial presence test: \(counted[0]) counted days in \(year) (31 or more) and \(weighted) (183 or more)."))
        if facts.claimsCloserConnection {
            return stop(.closerConnection, reasons, counted, sixths)
        }
        if presence.changedFromExempt {
            return stop(.dualStatus(year, "your residency starts on the day your status changed"), reasons, counted, sixths)
        }
        if !presence.metLastYear, facts.presentOnJanuary1 != true {
            return stop(.dualStatus(year, "your residency starts on your first counted day, after January 1"), reasons, counted, sixths)
        }
        reasons.append(.init(rule: "resident-all-year", text: "You were a resident alien for all of \(year): file Form 1040."))
        return .init(residency: .resident, forms: [.f1040], reasons: reasons, countedDays: counted, weightedDaysInSixths: sixths)
    }

    /// The substantial presence test on what is known so far.
    public struct Presence: Sendable {
        /// Whether this year, last year and the year before were exempt years.
        public var exempt: [Bool]
        /// The days that count, the same three years.
        public var counted: [Int]
        public var sixths: Int
        public var meets: Bool
        /// Last year's test met on its two known years (the third can only add days): resident from January 1.
        public var metLastYear: Bool
        /// The status changed this year from an exempt one to one whose days count.
        public var changedFromExempt: Bool
        /// Resident this year from a day after January 1 unless present on it: the interview asks
        /// (after a change of status, residency starts on the change: no need to ask).
        public var mayStartThisYear: Bool { meets && !metLastYear && !changedFromExempt }
    }

    public static func presence(_ facts: ResidencyFacts, year: Int) -> Presence {
        var reasons: [TaxForm.Reason] = []
        return presence(facts, year: year, reasons: &reasons)
    }

    static func presence(_ facts: ResidencyFacts, year: Int, reasons: inout [TaxForm.Reason]) -> Presence {
        let exempt = exemptYears(facts, year: year, reasons: &reasons)
        var counted = (0..<3).map { index in exempt[index] ? 0 : max(0, facts.days[index]) }
        let changedFromExempt = facts.visaBeforeChange.map(isExemptType) == true && !isExemptType(facts.visa)
        if changedFromExempt, let after = facts.daysAfterChange {
            // Exempt until the change, counted after it.
            counted[0] = max(0, after)
            reasons.append(.init(rule: "change-of-status", text: "Your days in \(year) count from your change of status: \(after) days."))
        }
        let sixths = 6 * counted[0] + 2 * counted[1] + counted[2]
        return Presence(
            exempt: exempt, counted: counted, sixths: sixths, meets: counted[0] >= 31 && sixths >= 1_098,
            metLastYear: counted[1] >= 31 && 6 * counted[1] + 2 * counted[2] >= 1_098, changedFromExempt: changedFromExempt)
    }

    /// Whether this year (index 0) and the two before (1, 2) were exempt years, going through the
    /// history oldest first and counting exempt years as it goes.
    static func exemptYears(_ facts: ResidencyFacts, year: Int, reasons: inout [TaxForm.Reason]) -> [Bool] {
        let history = (0..<teacherLookback).map { $0 < facts.priorVisas.count ? facts.priorVisas[$0] : .none }
        // Oldest first: six years ago ... last year, then this year.
        let statuses = Array(history.reversed()) + [facts.visaBeforeChange ?? facts.visa]
        var exemptSoFar = facts.earlierExemptYears
        var flags: [Bool] = []
        for (index, status) in statuses.enumerated() {
            let isExempt: Bool
            if Self.isStudent(status) {
                isExempt = exemptSoFar < studentYears
            } else if status == .jScholar {
                isExempt = flags.suffix(teacherLookback).filter { $0 }.count < teacherLimit
            } else {
                isExempt = false
            }
            if index == statuses.count - 1 {
                reasons.append(exemptReason(status, exempt: isExempt, earlierYears: exemptSoFar, teacherYears: flags.suffix(teacherLookback).filter { $0 }.count, year: year))
            }
            flags.append(isExempt)
            if isExempt { exemptSoFar += 1 }
        }
        // Index 0 is this year.
        return [flags[6], flags[5], flags[4]]
    }

    static func isStudent(_ visa: TaxForm.Visa) -> Bool { [.f, .jStudent, .m, .q].contains(visa) }
    static func isExemptType(_ visa: TaxForm.Visa) -> Bool { isStudent(visa) || visa == .jScholar }

    static func exemptReason(_ visa: TaxForm.Visa, exempt: Bool, earlierYears: Int, teacherYears: Int, year: Int) -> TaxForm.Reason {
        if isStudent(visa) {
            return exempt
                ? .init(rule: "exempt-student", text: "As \(label(visa)) you are an exempt individual in \(year): it is calendar year \(earlierYears + 1) of the five a student is exempt for, so your days in \(year) do not count.")
                : .init(rule: "exempt-student-limit", text: "You were exempt as a student, teacher or trainee in \(earlierYears) earlier calendar years; a student is exempt for five, so your days in \(year) count.")
        }
        if visa == .jScholar {
            return exempt
                ? .init(rule: "exempt-teacher", text: "As a J-1 teacher, trainee or scholar you are an exempt individual in \(year): you were exempt in \(teacherYears) of the six years before (fewer than 2), so your days in \(year) do not count.")
                : .init(rule: "exempt-teacher-limit", text: "You were exempt in \(teacherYears) of the six years before \(year); a teacher or trainee exempt in 2 of them is not exempt again, so your days in \(year) count.")
        }
        return .init(rule: "not-exempt", text: "Days on \(visa == .other ? "your visa" : visa.rawValue) count toward the substantial presence test.")
    }

    static func label(_ visa: TaxForm.Visa) -> String {
        switch visa {
        case .f: "an F-1 student"
        case .jStudent: "a J-1 student"
        case .m: "an M-1 student"
        case .q: "a Q exchange visitor"
        default: "a \(visa.rawValue) visa holder"
        }
    }

    static func formsReason(_ forms: [TaxForm.Form], year: Int, income: Bool) -> TaxForm.Reason {
        switch forms {
        case [.f1040NR, .f8843]: .init(rule: "forms-nonresident", text: "A nonresident alien with US income files Form 1040-NR, with Form 8843 for the exempt days.")
        case [.f1040NR]: .init(rule: "forms-nonresident", text: "A nonresident alien with US income files Form 1040-NR.")
        case [.f8843]: .init(rule: "forms-8843-only", text: "Without US income you file Form 8843 alone, to explain the days that did not count.")
        default: .init(rule: "forms-none", text: "A nonresident alien without US income and without exempt days has no federal form to file for \(year).")
        }
    }

    /// The cases this service does not prepare, with where to get help.
    enum Unsupported {
        case dualStatus(Int, String)
        case closerConnection
        case firstYearChoice

        var stop: TaxForm.Stop {
            switch self {
            case .dualStatus(let year, let why):
                .init(rule: "dual-status", reason: "You are a dual-status alien for \(year) (\(why)); a dual-status return is not something we prepare.",
                      help: Self.help)
            case .closerConnection:
                .init(rule: "closer-connection", reason: "Claiming the closer-connection exception (Form 8840) is not something we prepare.", help: Self.help)
            case .firstYearChoice:
                .init(rule: "first-year-choice", reason: "The first-year choice to be treated as a resident is not something we prepare.", help: Self.help)
            }
        }

        static let help = "Ask your university's international student office, or a VITA site that serves nonresident aliens (IRS Publication 519 explains the rules)."
    }

    static func stop(_ case: Unsupported, _ reasons: [TaxForm.Reason], _ counted: [Int], _ sixths: Int) -> TaxForm.Decision {
        .init(residency: .unsupported, forms: [], reasons: reasons, stop: `case`.stop, countedDays: counted, weightedDaysInSixths: sixths)
    }

    /// Sixths of a day as a decimal with two places, not rounded up to a threshold: `1097` is `182.83`.
    static func decimal(_ sixths: Int) -> String {
        let hundredths = sixths * 100 / 6
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
