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
            "treaty.country": .text("CN"), "treaty.claim": .bool(true), "treaty.arrivalDate": .text("2022-08-20"), "treaty.priorMonths": .integer(16), "citizenship": .text("CN"), "name.first": .text("Mei"), "name.last": .text("Chen"),
            "income.w2s": .list([.object([
                "employerName": .text("Campus Dining"), "employerEIN": .text("12-3456789"), "wagesCents": .integer(2_000_000),
                "federalWithheldCents": .integer(180_000),
            ])]),
        ]
        for year in 1...6 { answers["visa.prior\(year)"] = .text(year <= 2 ? "F" : "none") }
        let assessment = engine.assess(answers, year: 2024)
        let documents = ReturnDocuments(
            assessment: assessment, answers: answers, year: 2024, visas: ["F": "F-1 student"], due: "2025-04-15",
            treaty: engine.rules.years[2024]?.treaty("CN"), countryNames: engine.countryNames)
        let forms = documents.forms
        #expect(forms.map(\.form) == ["1040-NR", "1040-NR-schedule-OI", "8843", "filing-instructions"])
        let schedule = try #require(forms.first { $0.form == "1040-NR-schedule-OI" })
        #expect(schedule.lines.first { $0.line == "L" }?.value == "China, article 20(c), 16 months claimed before 2024, 5,000")
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

    /// An F-1 student whose employer withheld Social Security and Medicare tax and refused to pay it
    /// back: Form 843 and Form 8316 after the return, mailed by themselves with the attachments listed.
    @Test func ficaWithheldInErrorGetsForms843And8316AndTheirAttachments() throws {
        let engine = try InterviewEngine.bundled()
        var answers: TaxForm.Answers = [
            "citizen": .bool(false), "greenCard": .text("no"), "visa": .text("F"), "visa.changed": .bool(false), "visa.earlierYears": .integer(0),
            "days.thisYear": .integer(300), "days.lastYear": .integer(300), "days.twoYearsAgo": .integer(120), "income.any": .bool(true),
            "name.first": .text("Lena"), "name.last": .text("Vogel"), "tin": .text("912-70-4321"),
            "income.w2s": .list([.object([
                "employerName": .text("Campus Dining"), "employerEIN": .text("12-3456789"), "wagesCents": .integer(1_000_000),
                "federalWithheldCents": .integer(50_000), "socialSecurityWithheldCents": .integer(62_000), "medicareWithheldCents": .integer(14_500),
            ])]),
        ]
        for year in 1...6 { answers["visa.prior\(year)"] = .text(year <= 2 ? "F" : "none") }
        #expect(engine.assess(answers, year: 2024).missing.contains { $0.question == "fica.authorized" }, "asked once a W-2 shows the tax")
        answers["fica.authorized"] = .bool(true)
        answers["fica.employer"] = .text("refused")
        answers["fica.statement"] = .bool(false)
        answers["fica.noStatement"] = .text("Payroll did not answer my emails of March 3 and March 20")
        let assessment = engine.assess(answers, year: 2024)
        #expect(assessment.forms.map(\.form) == [.f1040NR, .f843, .f8316], "\(assessment.notes)")
        let forms = ReturnDocuments(assessment: assessment, answers: answers, year: 2024, visas: ["F": "F-1 student"], due: "2025-04-15", treaty: nil).forms
        #expect(forms.map(\.form) == ["1040-NR", "1040-NR-schedule-OI", "8843", "843", "8316", "filing-instructions"])
        let claim = try #require(forms.first { $0.form == "843" })
        #expect(claim.lines.first { $0.line == "2" }?.value == "$765.00")
        #expect(claim.lines.first { $0.line == "3" }?.value == "Employment" && claim.lines.first { $0.line == "6" }?.value == "941 (your employer's)")
        #expect(claim.lines.contains { $0.label.contains("3121(b)(19)") && $0.label.contains("$765.00") }, "the explanation cites the exclusion")
        let information = try #require(forms.first { $0.form == "8316" })
        #expect(information.lines.first { $0.line == "1" }?.value == "No")
        #expect(information.lines.first { $0.line == "statement" }?.value == "Payroll did not answer my emails of March 3 and March 20")
        #expect(information.lines.first { $0.line == "9" }?.value == "Campus Dining (EIN 12-3456789)")
        let steps = try #require(forms.last).lines.map(\.value)
        for attachment in ["Form 8316", "A copy of your visa", "No employer's statement: Form 8316 says why"] {
            #expect(steps.contains(attachment), "\(attachment) in \(steps)")
        }
        #expect(steps.contains { $0.hasPrefix(ReturnDocuments.claimAddress) }, "\(steps)")
    }

    /// A resident alien from China: Form 1040, Schedule 1 with the exemption on line 8z, Form 8833.
    @Test func aResidentChineseStudentsReturnDisclosesTheTreatyOnForm8833() throws {
        let engine = try InterviewEngine.bundled()
        var answers: TaxForm.Answers = [
            "citizen": .bool(false), "greenCard": .text("no"), "visa": .text("F"), "visa.changed": .bool(false), "visa.earlierYears": .integer(0),
            "days.thisYear": .integer(366), "days.lastYear": .integer(365), "days.twoYearsAgo": .integer(365), "days.januaryFirst": .bool(true),
            "closerConnection": .bool(false), "income.any": .bool(true), "name.first": .text("Mei"), "name.last": .text("Chen"),
            "treaty.country": .text("CN"), "treaty.claim": .bool(true), "treaty.arrivalDate": .text("2018-08-20"),
            "income.w2s": .list([.object([
                "employerName": .text("Campus Dining"), "employerEIN": .text("12-3456789"), "wagesCents": .integer(3_000_000), "federalWithheldCents": .integer(250_000),
            ])]),
        ]
        for year in 1...6 { answers["visa.prior\(year)"] = .text("F") }
        let assessment = engine.assess(answers, year: 2024)
        #expect(assessment.decision?.residency == .resident && assessment.forms.map(\.form) == [.f1040, .f1040Schedule1, .f8833], "\(assessment.notes)")
        let forms = ReturnDocuments(
            assessment: assessment, answers: answers, year: 2024, visas: ["F": "F-1 student"], due: "2025-04-15",
            treaty: engine.rules.years[2024]?.treaty("CN"), countryNames: engine.countryNames).forms
        #expect(forms.map(\.form) == ["1040", "1040-schedule-1", "8833", "filing-instructions"])
        let disclosure = try #require(forms.first { $0.form == "8833" })
        #expect(disclosure.lines.first { $0.line == "1a" }?.value == "China")
        #expect(disclosure.lines.first { $0.line == "1b" }?.value == "20(c); Protocol of April 30, 1984, paragraph 2")
        #expect(disclosure.lines.first { $0.line == "6" }?.value == "Wages of $5,000 exempt under article 20(c)")
        #expect(forms[1].lines.first { $0.line == "8z" }?.value == "(5,000)" && forms[0].lines.first { $0.line == "8" }?.value == "(5,000)")
        #expect(forms[1].lines.first { $0.line == "8z.type" }?.value == "Exempt income, China, article 20(c)")
        #expect(try #require(forms.last).lines.map(\.value).contains("Attach it to the Form 1040, after Schedule 1"))
    }
}
