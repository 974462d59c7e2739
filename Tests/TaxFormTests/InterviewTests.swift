import Foundation
import TaxFormContract
import TaxFormService
import Testing

@Suite(.timeLimit(.minutes(1))) struct InterviewTests {
    static let engine = try! InterviewEngine.bundled()

    /// An F-1 student from China in her third year, with the deciding answers given.
    static let f1FromChina: TaxForm.Answers = [
        "citizen": .bool(false), "greenCard": .text("no"), "visa": .text("F"), "visa.entryDate": .text("2022-08-20"), "visa.changed": .bool(false),
        "visa.prior1": .text("F"), "visa.prior2": .text("F"), "visa.prior3": .text("none"), "visa.prior4": .text("none"),
        "visa.prior5": .text("none"), "visa.prior6": .text("none"), "visa.earlierYears": .integer(0),
        "days.thisYear": .integer(300), "days.lastYear": .integer(300), "days.twoYearsAgo": .integer(120), "income.any": .bool(true),
    ]

    static let campusW2: TaxForm.Answer = .object([
        "employerName": .text("Campus Dining"), "employerEIN": .text("123456789"), "wagesCents": .integer(2_000_000),
        "federalWithheldCents": .integer(180_000), "socialSecurityWithheldCents": .integer(124_000),
        "states": .list([.object(["state": .text("MA"), "wagesCents": .integer(2_000_000), "withheldCents": .integer(60_000)])]),
    ])

    func assess(_ answers: TaxForm.Answers, skipped: Set<String> = [], year: Int = 2024) throws -> TaxForm.Assessment {
        let (checked, issues) = Self.engine.checked(answers, year: year)
        #expect(issues.isEmpty, "\(issues)")
        return Self.engine.assess(checked, skipped: skipped, year: year)
    }

    @Test func theServerAsksTheNextQuestionsUntilTheFormsAreDecided() throws {
        let first = try assess([:])
        #expect(first.next.map(\.id) == ["citizen"] && first.decision == nil && !first.complete)
        let second = try assess(["citizen": .bool(false)])
        #expect(second.next.map(\.id) == ["greenCard"])
        #expect(second.next.first?.choices?[1].label == "Yes, for all of 2024", "years are filled in everywhere")
        #expect(!second.missing.contains { $0.question == "firstYearChoice" }, "not asked before the visa and the days are known")
        let third = try assess(["citizen": .bool(false), "greenCard": .text("no")])
        #expect(third.next.map(\.id) == ["visa", "visa.changed", "visa.prior1", "visa.prior2", "visa.prior3"])
        #expect(third.next.first?.prompt == "Which immigration status did you have at the end of 2024?")
        #expect(third.next[2].prompt == "Which status did you have in 2023?")
        // Deciding questions cannot be skipped: they come back.
        #expect(try assess(["citizen": .bool(false), "greenCard": .text("no")], skipped: ["visa"]).next.first?.id == "visa")
    }

    @Test func anF1StudentFromChinaGetsThe1040NRWithTheTreatyAndThe8843() throws {
        var answers = Self.f1FromChina
        let decided = try assess(answers)
        #expect(decided.decision?.residency == .nonresident && decided.decision?.forms == [.f1040NR, .f8843])
        #expect(decided.next.first?.id == "income.w2s")
        answers["income.w2s"] = .list([Self.campusW2])
        answers["income.scholarship"] = .integer(0)
        answers["income.scholarshipWithheld"] = .integer(0)
        answers["income.interest"] = .integer(0)
        answers["income.other"] = .bool(false)
        answers["treaty.country"] = .text("CN")
        let offered = try assess(answers)
        #expect(offered.next.first?.id == "treaty.claim", "China has a treaty in the data, so the claim is asked")
        answers["treaty.claim"] = .bool(true)
        let assessed = try assess(answers)
        let form = try #require(assessed.forms.first)
        #expect(form.form == .f1040NR)
        #expect([form["1a"]?.dollars, form["1k"]?.dollars, form["12"]?.dollars, form["15"]?.dollars, form["16"]?.dollars, form["35a"]?.dollars]
            == [15_000, 5_000, 600, 14_400, 1_499, 301])
        #expect(assessed.refundCents == 30_100)
        #expect(assessed.notes.contains { $0.contains("you do not owe it on work your visa allows") }, "FICA withheld from an exempt student")
        #expect(assessed.next.map(\.id) == ["treaty.arrivalDate", "treaty.priorMonths"], "China's benefit has no year limit, but Schedule OI asks the months")
        #expect(assessed.notCovered.contains { $0.contains("e-filing") })
        // What is still open says what it leaves out.
        #expect(assessed.missing.contains { $0.question == "tin" && $0.leavesOut == "your identifying number on every form" })
        #expect(!assessed.complete)
    }

    @Test func skippedQuestionsStayMissingWithWhatTheyLeaveOut() throws {
        var answers = Self.f1FromChina
        answers["income.any"] = .bool(false)
        let assessed = try assess(answers, skipped: ["name.first"])
        #expect(assessed.decision?.forms == [.f8843] && assessed.forms.isEmpty && assessed.refundCents == nil)
        #expect(assessed.next.first?.id == "name.last", "the skipped question is not offered again")
        let skipped = try #require(assessed.missing.first { $0.question == "name.first" })
        #expect(skipped.skipped && skipped.leavesOut == "your name on every form")
        #expect(!assessed.missing.contains { $0.question == "income.w2s" }, "no income: no W-2 questions")
    }

    @Test func badAnswersAreRefusedNamingTheField() {
        let (_, issues) = Self.engine.checked([
            "days.thisYear": .integer(400), "tin": .text("000-12-3456"), "nonsense": .bool(true), "citizen": .text("no"),
            "address.us": .object(["line1": .text("1 Main St"), "city": .text("Boston"), "country": .text("US"), "postalCode": .text("0211")]),
            "income.w2s": .list([.object([
                "employerName": .text("Lab"), "employerEIN": .text("12-34"), "wagesCents": .integer(100), "federalWithheldCents": .integer(200),
            ])]),
            "phone": .text("617 555 0100"), "visa.entryDate": .text("2024-02-30"),
        ], year: 2024)
        let fields = Set(issues.map(\.field))
        #expect(fields == [
            "answers.days.thisYear", "answers.tin", "answers.nonsense", "answers.citizen", "answers.address.us.state",
            "answers.address.us.postalCode", "answers.income.w2s[0].employerEIN", "answers.income.w2s[0].federalWithheldCents",
            "answers.phone", "answers.visa.entryDate",
        ])
        #expect(issues.first { $0.field == "answers.income.w2s[0].federalWithheldCents" }?.message.contains("box 2") == true)
    }

    /// `\d` in a regex takes any script's digits, which `Int` then refused: a date answer in
    /// Arabic-Indic digits crashed the tax-form worker. It is refused like any other bad date.
    @Test func aDateInAnotherScriptsDigitsIsRefused() {
        let (_, issues) = Self.engine.checked(["visa.entryDate": .text("٢٠٢٤-٠١-٠١")], year: 2024)
        #expect(issues.map(\.field) == ["answers.visa.entryDate"])
    }

    @Test func anEINOrAZIPCodeTakesOnlyASCIIDigits() {
        let (_, issues) = Self.engine.checked([
            "address.us": .object(["line1": .text("1 Main St"), "city": .text("Boston"), "state": .text("MA"), "country": .text("US"),
                                   "postalCode": .text("٠٢١١٥")]),
            "income.w2s": .list([
                .object(["employerName": .text("Lab"), "employerEIN": .text("١٢-٣٤٥٦٧٨٩"), "wagesCents": .integer(100), "federalWithheldCents": .integer(0)]),
                .object(["employerName": .text("Lab"), "employerEIN": .text("12-345678½"), "wagesCents": .integer(100), "federalWithheldCents": .integer(0)]),
            ]),
        ], year: 2024)
        #expect(Set(issues.map(\.field)) == ["answers.address.us.postalCode", "answers.income.w2s[0].employerEIN", "answers.income.w2s[1].employerEIN"])
    }

    @Test func answersAreNormalised() {
        let (answers, issues) = Self.engine.checked(["tin": .text("912 70 1234"), "phone": .text("+1 (617) 555-0100"), "email": .text("Mei@Example.EDU")], year: 2024)
        #expect(issues.isEmpty)
        #expect(answers["tin"] == .text("912-70-1234") && answers["phone"] == .text("+16175550100") && answers["email"] == .text("mei@example.edu"))
    }

    @Test func aW2WithAnUnsupportedCodeStopsTheInterview() throws {
        var answers = Self.f1FromChina
        guard case .object(var w2) = Self.campusW2 else { return }
        w2["box12"] = .list([.object(["code": .text("A"), "amountCents": .integer(5_000)])])
        answers["income.w2s"] = .list([.object(w2)])
        let assessed = try assess(answers)
        #expect(assessed.stop?.rule == "unsupported-w2-code" && assessed.stop?.reason.contains("code A") == true)
        #expect(assessed.next.isEmpty && assessed.forms.isEmpty && !assessed.complete)
    }

    @Test func aQuestionMayDependOnlyOnEarlierOnes() throws {
        let script = """
            {"sections": [{"id": "s", "title": "S"}], "questions": [
              {"id": "a", "section": "s", "kind": "yes-no", "decides": true, "prompt": "A?", "help": "", "when": {"answer": "b", "is": true}},
              {"id": "b", "section": "s", "kind": "yes-no", "decides": true, "prompt": "B?", "help": ""}]}
            """
        let decoded = try JSONDecoder().decode(InterviewScript.self, from: Data(script.utf8))
        #expect(throws: (any Error).self) {
            try InterviewEngine(rules: Self.engine.rules, script: decoded, countries: [], states: [], version: "test")
        }
    }
}
