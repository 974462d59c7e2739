import PdfEmailContract
import TaxFormContract
@testable import TaxFormService
import Testing

/// What each form of a return carries to pdf-email: the nonresident's packet and its Schedule OI.
@Suite(.timeLimit(.minutes(1))) struct ReturnDocumentsTests {
    @Test func aNonresidentFromChinaGetsTheFormsSchedulesAndInstructionsInOrder() throws {
        let engine = try InterviewEngine.bundled()
        var answers: TaxForm.Answers = [
            "citizen": .bool(false), "greenCard": .text("no"), "visa": .text("F"), "visa.changed": .bool(false), "visa.earlierYears": .integer(0),
            "days.thisYear": .integer(300), "days.lastYear": .integer(300), "days.twoYearsAgo": .integer(120), "income.any": .bool(true),
            "treaty.country": .text("CN"), "treaty.claim": .bool(true), "citizenship": .text("CN"), "name.first": .text("Mei"), "name.last": .text("Chen"),
            "income.w2s": .list([.object([
                "employerName": .text("Campus Dining"), "employerEIN": .text("12-3456789"), "wagesCents": .integer(2_000_000),
                "federalWithheldCents": .integer(180_000),
            ])]),
        ]
        for year in 1...6 { answers["visa.prior\(year)"] = .text(year <= 2 ? "F" : "none") }
        let assessment = engine.assess(answers, year: 2024)
        let documents = ReturnDocuments(
            assessment: assessment, answers: answers, year: 2024, visas: ["F": "F-1 student"], due: "2025-04-15", treaty: ("CN", "20(c)"))
        let forms = documents.forms
        #expect(forms.map(\.form) == ["1040-NR", "1040-NR-schedule-OI", "8843", "filing-instructions"])
        let schedule = try #require(forms.first { $0.form == "1040-NR-schedule-OI" })
        #expect(schedule.lines.first { $0.line == "L" }?.value == "CN, article 20(c), 5,000")
        #expect(schedule.lines.first { $0.line == "H" }?.value == "120, 300, 300")
        let statement = try #require(forms.first { $0.form == "8843" })
        #expect(statement.lines.first { $0.line == "1a" }?.value == "F-1 student")
        #expect(statement.lines.first { $0.line == "12" }?.value == "No", "two prior years as a student, not more than five")
        let steps = try #require(forms.last)
        #expect(steps.lines.map(\.value).contains("Attach it to the Form 1040-NR"))
        #expect(steps.lines.map(\.line) == (1...steps.lines.count).map(String.init), "steps numbered in order: \(steps.lines.map(\.line))")
        #expect(forms.map(\.name) == ["Form 1040-NR", "Schedule OI (Form 1040-NR)", "Form 8843", "Filing instructions"])
        #expect(statement.lines.first { $0.line == "13" }?.value == nil, "not asked: left for the student")
        #expect(forms[0].lines.first { $0.line == "1k" }?.value == "5,000")
    }

    @Test func form8843AsksAboutStepsTowardAGreenCard() throws {
        let engine = try InterviewEngine.bundled()
        var answers: TaxForm.Answers = [
            "citizen": .bool(false), "greenCard": .text("no"), "visa": .text("F"), "visa.changed": .bool(false), "visa.earlierYears": .integer(0),
            "days.thisYear": .integer(300), "days.lastYear": .integer(300), "days.twoYearsAgo": .integer(120), "income.any": .bool(false),
        ]
        for year in 1...6 { answers["visa.prior\(year)"] = .text(year <= 2 ? "F" : "none") }
        #expect(engine.assess(answers, year: 2024).missing.contains { $0.question == "permanentResidence.steps" }, "asked of a student")
        answers["permanentResidence.steps"] = .bool(true)
        answers["permanentResidence.explanation"] = .text("Diversity visa lottery entry, October 2024")
        let documents = ReturnDocuments(
            assessment: engine.assess(answers, year: 2024), answers: answers, year: 2024, visas: ["F": "F-1 student"], due: "2025-06-16", treaty: nil)
        let statement = try #require(documents.forms.first { $0.form == "8843" })
        #expect(statement.lines.first { $0.line == "13" }?.value == "Yes")
        #expect(statement.lines.first { $0.line == "14" }?.value == "Diversity visa lottery entry, October 2024")
    }
}
