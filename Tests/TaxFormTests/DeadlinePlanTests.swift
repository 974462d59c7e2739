import TaxFormContract
import TaxFormService
import Testing

@Suite(.timeLimit(.minutes(1))) struct DeadlinePlanTests {
    static let engine = InterviewTests.engine

    func plan(_ answers: TaxForm.Answers, year: Int = 2024) throws -> DeadlinePlan? {
        let (checked, issues) = Self.engine.checked(answers, year: year)
        #expect(issues.isEmpty, "\(issues)")
        return DeadlinePlan.plan(Self.engine.assess(checked, year: year), answers: checked, rules: try #require(Self.engine.rules.years[year]))
    }

    @Test func theDeadlineFollowsTheFormsAndTheWages() throws {
        var answers = InterviewTests.f1FromChina
        #expect(try plan(answers)?.due == "2025-06-16", "1040-NR without wages: June 15, 2025 is a Sunday")
        answers["income.w2s"] = .list([InterviewTests.campusW2])
        #expect(try plan(answers)?.due == "2025-04-15", "1040-NR with wages: April 15")
        answers["income.any"] = .bool(false)
        answers["income.w2s"] = nil
        let alone = try #require(try plan(answers))
        #expect(alone.due == "2025-06-16" && alone.reason.hasPrefix("8843 without wages is due on June 15"))
        #expect(alone.reminders.map(\.date) == ["2025-05-17", "2025-06-09", "2025-06-15"])
        #expect(try plan([:]) == nil, "nothing decided, no deadline")
    }
}
