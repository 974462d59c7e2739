import TaxFormContract
import TaxFormService
import Testing

@Suite(.timeLimit(.minutes(1))) struct ResidencyTests {
    static func facts(_ visa: TaxForm.Visa, prior: [TaxForm.Visa] = [], days: [Int], income: Bool = true) -> ResidencyFacts {
        var facts = ResidencyFacts()
        facts.visa = visa
        facts.priorVisas = prior
        facts.days = days
        facts.hasUSIncome = income
        return facts
    }

    @Test func exactly183WeightedDaysMeetTheTestAndOneSixthLessDoesNot() {
        // 153 + 90/3 + 0/6 = 183 exactly; 153 + 89/3 + 1/6 = 182.83, not rounded up.
        var meets = Self.facts(.h1b, prior: [.h1b], days: [153, 90, 0])
        meets.presentOnJanuary1 = true
        let resident = ResidencyTest.decide(meets, year: 2024)
        #expect(resident.residency == .resident && resident.forms == [.f1040] && resident.weightedDaysInSixths == 1_098)
        let short = ResidencyTest.decide(Self.facts(.h1b, prior: [.h1b, .h1b], days: [153, 89, 1]), year: 2024)
        #expect(short.residency == .nonresident && short.forms == [.f1040NR] && short.weightedDaysInSixths == 1_097)
        #expect(short.reasons.contains { $0.rule == "substantial-presence" && $0.text.contains("182.83") })
        // 183 weighted days but fewer than 31 this year.
        #expect(ResidencyTest.decide(Self.facts(.h1b, prior: [.h1b, .h1b], days: [30, 365, 365]), year: 2024).residency == .nonresident)
    }

    @Test func aStudentIsExemptInTheFifthCalendarYearAndCountsDaysInTheSixth() {
        let fifth = ResidencyTest.decide(Self.facts(.f, prior: [.f, .f, .f, .f], days: [365, 365, 365]), year: 2024)
        #expect(fifth.residency == .nonresident && fifth.forms == [.f1040NR, .f8843] && fifth.countedDays == [0, 0, 0])
        #expect(fifth.reasons.contains { $0.rule == "exempt-student" && $0.text.contains("calendar year 5") })

        var sixth = Self.facts(.f, prior: [.f, .f, .f, .f, .f], days: [366, 365, 365])
        sixth.presentOnJanuary1 = true
        let resident = ResidencyTest.decide(sixth, year: 2024)
        #expect(resident.residency == .resident && resident.forms == [.f1040] && resident.countedDays == [366, 0, 0])
        #expect(resident.reasons.contains { $0.rule == "exempt-student-limit" })
        // Away on January 1 of the sixth year: residency starts later in the year.
        sixth.presentOnJanuary1 = false
        #expect(ResidencyTest.decide(sixth, year: 2024).stop?.rule == "dual-status")
        // Years before the six prior ones count toward the five.
        var returning = Self.facts(.f, prior: [.f, .none, .none, .none, .none, .none], days: [200, 200, 0])
        returning.earlierExemptYears = 4
        returning.presentOnJanuary1 = true
        #expect(ResidencyTest.decide(returning, year: 2024).countedDays == [200, 0, 0])
    }

    @Test func aStudentWithoutUSIncomeFiles8843Alone() {
        let decision = ResidencyTest.decide(Self.facts(.f, days: [120, 0, 0], income: false), year: 2025)
        #expect(decision.residency == .nonresident && decision.forms == [.f8843])
        #expect(decision.reasons.contains { $0.rule == "forms-8843-only" })
    }

    @Test func aJ1ScholarIsExemptUnlessExemptInTwoOfTheSixPriorYears() {
        let first = ResidencyTest.decide(Self.facts(.jScholar, prior: [.none, .f], days: [300, 0, 200]), year: 2024)
        #expect(first.residency == .nonresident && first.forms == [.f1040NR, .f8843] && first.countedDays[0] == 0)
        #expect(first.reasons.contains { $0.rule == "exempt-teacher" })

        var again = Self.facts(.jScholar, prior: [.none, .jScholar, .jScholar], days: [300, 0, 0])
        again.presentOnJanuary1 = true
        let counted = ResidencyTest.decide(again, year: 2024)
        #expect(counted.residency == .resident && counted.countedDays[0] == 300)
        #expect(counted.reasons.contains { $0.rule == "exempt-teacher-limit" })
    }

    @Test func casesWeDoNotPrepareStopWithTheReasonAndWhereToGetHelp() {
        var change = Self.facts(.h1b, prior: [.f, .f], days: [365, 365, 365])
        change.visaBeforeChange = .f
        change.daysAfterChange = 200
        let dual = ResidencyTest.decide(change, year: 2024)
        #expect(dual.residency == .unsupported && dual.stop?.rule == "dual-status" && dual.forms.isEmpty)
        #expect(dual.stop?.help.contains("Publication 519") == true)

        var greenCard = Self.facts(.h1b, days: [365, 0, 0])
        greenCard.greenCard = .partOfYear
        #expect(ResidencyTest.decide(greenCard, year: 2024).stop?.rule == "dual-status")

        var closer = Self.facts(.h1b, prior: [.h1b], days: [200, 365, 0])
        closer.claimsCloserConnection = true
        #expect(ResidencyTest.decide(closer, year: 2024).stop?.rule == "closer-connection")

        var choice = Self.facts(.h1b, days: [100, 0, 0])
        choice.makesFirstYearChoice = true
        #expect(ResidencyTest.decide(choice, year: 2024).stop?.rule == "first-year-choice")
    }

    @Test func citizensAndAllYearGreenCardHoldersAreResidents() {
        var citizen = ResidencyFacts()
        citizen.usCitizen = true
        #expect(ResidencyTest.decide(citizen, year: 2024).forms == [.f1040])
        var greenCard = Self.facts(.other, days: [10, 0, 0])
        greenCard.greenCard = .allYear
        #expect(ResidencyTest.decide(greenCard, year: 2024).reasons.first?.rule == "green-card-test")
    }
}
