import Crypto
import Envelope
import Foundation
import TaxFormContract

/// The interview: which questions apply to a set of answers, what comes next, the forms decision
/// once the deciding questions are answered, and the return computed from what is there.
public struct InterviewEngine: Sendable {
    public let rules: RuleBook
    public let script: InterviewScript
    let check: AnswerCheck
    /// Rules, questions and lists together: any change gives a new version.
    public let version: String
    /// Country names by ISO code (`countries.json`), for the forms.
    public let countryNames: [String: String]

    /// How many questions `next` offers at once.
    static let screen = 5

    /// What this service never prepares, said with every assessment.
    public static let notCovered = [
        "No e-filing: print, sign and mail the forms (e-filing needs an IRS authorisation we do not have).",
        "No state or local returns.",
        "No self-employment income (Schedules C and SE).",
        "No dual-status returns.",
        "No joint returns, dependents or credits.",
    ]

    public init(rules: RuleBook, script: InterviewScript, countries: Set<String>, states: Set<String>, version: String, countryNames: [String: String] = [:]) throws {
        try script.check()
        self.rules = rules
        self.countryNames = countryNames
        self.script = script
        check = AnswerCheck(questions: Dictionary(uniqueKeysWithValues: script.questions.map { ($0.id, $0) }), countries: countries, states: states)
        self.version = version
    }

    /// The engine on the data shipped in the module's `Data` folder.
    public static func bundled() throws -> InterviewEngine {
        let folder = Bundle.module.resourceURL!.appendingPathComponent("Data")
        let rules = try RuleBook.load(from: folder)
        var hash = SHA256()
        hash.update(data: Data(rules.version.utf8))
        func read(_ name: String) throws -> Data {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            hash.update(data: data)
            return data
        }
        let script = try JSONDecoder().decode(InterviewScript.self, from: read("interview.json"))
        let countries = try JSONDecoder().decode(CodeList.self, from: read("countries.json"))
        let states = try JSONDecoder().decode(CodeList.self, from: read("states.json"))
        let version = hash.finalize().prefix(8).map { String(format: "%02x", $0) }.joined()
        return try InterviewEngine(
            rules: rules, script: script, countries: Set(countries.entries.map(\.code)), states: Set(states.entries.map(\.code)), version: version,
            countryNames: Dictionary(countries.entries.map { ($0.code, $0.name) }) { first, _ in first })
    }

    /// `countries.json` and `states.json`: codes, names and where they come from.
    struct CodeList: Decodable {
        struct Entry: Decodable {
            let code: String
            let name: String
        }

        let source: String
        let entries: [Entry]

        enum CodingKeys: String, CodingKey { case source, countries, states }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            source = try container.decode(String.self, forKey: .source)
            entries = try container.decodeIfPresent([Entry].self, forKey: .countries) ?? container.decode([Entry].self, forKey: .states)
        }
    }

    /// The questions of `year` whose answers a later year's interview can take (`carriesOver`).
    func carriedOver(year: Int) -> [String] {
        script.questions.filter { $0.carriesOver == true && $0.applies(to: year) }.map(\.id)
    }

    /// The questions of `year`, as clients see them.
    public func questions(year: Int) -> [TaxForm.Question] {
        script.questions.filter { $0.applies(to: year) }.map { $0.view(year: year) }
    }

    /// `year` when it has rules; otherwise nil, with the problem recorded under `data.taxYear`.
    public func checkedYear(_ year: Int, _ validation: inout Validation) -> Int? {
        guard rules.years[year] != nil else {
            validation.fail("data.taxYear", "must be a tax year with rules: \(rules.years.keys.sorted().map(String.init).joined(separator: ", "))")
            return nil
        }
        return year
    }

    /// `year` when it has rules; otherwise `invalid` naming `data.taxYear`.
    public func checkedYear(_ year: Int) throws(OperationError) -> Int {
        var validation = Validation()
        let checked = checkedYear(year, &validation)
        try validation.finish()
        return checked!
    }

    /// Checks and normalises `answers` for `year`; the issues name each bad field.
    public func checked(_ answers: TaxForm.Answers, year: Int, at path: String = "answers") -> (TaxForm.Answers, [OperationError.FieldIssue]) {
        check.check(answers, year: year, at: path)
    }

    /// Where checked `answers` stand for `year`, with `skipped` questions left for later.
    public func assess(_ answers: TaxForm.Answers, skipped: Set<String> = [], year: Int) -> TaxForm.Assessment {
        guard let rules = rules.years[year] else { preconditionFailure("assess is called for years with rules only") }
        let questions = script.questions.filter { $0.applies(to: year) }
        func applicable(_ facts: Set<String>, in answers: TaxForm.Answers) -> [InterviewScript.ScriptQuestion] {
            questions.filter { $0.when?.holds(answers, facts) ?? true }
        }
        func assessment(next: [InterviewScript.ScriptQuestion], open: [InterviewScript.ScriptQuestion], decision: TaxForm.Decision? = nil,
                        stop: TaxForm.Stop? = nil, computed: ComputedReturn? = nil, notes: [String] = []) -> TaxForm.Assessment {
            let missing = open.map { TaxForm.Missing(question: $0.id, section: $0.section, skipped: skipped.contains($0.id), leavesOut: $0.leavesOut) }
            return TaxForm.Assessment(
                taxYear: year, rulesVersion: version, next: stop == nil ? next.map { $0.view(year: year) } : [], decision: decision, stop: stop,
                forms: computed?.forms ?? [], refundCents: computed?.refundCents, missing: missing, complete: stop == nil && missing.isEmpty,
                notes: notes + (computed?.notes ?? []), notCovered: Self.notCovered)
        }

        // The decision first: its questions cannot be skipped.
        let before = InterviewFacts.beforeDecision(answers, year: year)
        let deciding = applicable(before, in: answers).filter(\.decides)
        let decidingAnswers = answers.filter { id, _ in deciding.contains { $0.id == id } }
        let openDeciding = deciding.filter { answers[$0.id] == nil }
        if !openDeciding.isEmpty {
            return assessment(next: Self.screen(openDeciding), open: openDeciding)
        }
        let decision = ResidencyTest.decide(InterviewFacts.residency(decidingAnswers), year: year)
        if let stop = decision.stop { return assessment(next: [], open: [], decision: decision, stop: stop) }

        let facts = before.union(InterviewFacts.afterDecision(decision, answers: answers, w2s: Self.w2s(answers["income.w2s"]), rules: rules))
        let asked = applicable(facts, in: answers)
        let effective = answers.filter { id, _ in asked.contains { $0.id == id } }
        let open = asked.filter { effective[$0.id] == nil }
        let w2s = Self.w2s(effective["income.w2s"])
        if let stop = Self.stop(effective, w2s: w2s) { return assessment(next: [], open: open, decision: decision, stop: stop) }
        let next = Self.screen(open.filter { !skipped.contains($0.id) })
        guard decision.forms.contains(.f1040) || decision.forms.contains(.f1040NR) else {
            return assessment(next: next, open: open, decision: decision)
        }
        let computed = ReturnCalculator.compute(InterviewFacts.returnFacts(effective, w2s: w2s), residency: decision.residency, rules: rules)
        return assessment(next: next, open: open, decision: decision, computed: computed)
    }

    /// A few open questions of one section: the first open question's section.
    static func screen(_ open: [InterviewScript.ScriptQuestion]) -> [InterviewScript.ScriptQuestion] {
        guard let section = open.first?.section else { return [] }
        return Array(open.filter { $0.section == section }.prefix(screen))
    }

    /// The W-2s of a checked `income.w2s` answer; none when it is absent.
    static func w2s(_ answer: TaxForm.Answer?) -> [TaxForm.W2] {
        (try? answer?.decoded(as: [TaxForm.W2].self)) ?? []
    }

    /// Answers that take the return out of what we prepare.
    static func stop(_ answers: TaxForm.Answers, w2s: [TaxForm.W2]) -> TaxForm.Stop? {
        let help = "A VITA site or a paid preparer can prepare this return; your university's international office can point you to one."
        if answers.bool("income.other") == true {
            return .init(rule: "other-income", reason: "You had income besides wages, scholarships and interest; this return covers those three only.", help: help)
        }
        if answers.bool("filing.jointly") == true {
            return .init(rule: "married-jointly", reason: "Joint returns are not something we prepare.", help: help)
        }
        if answers.bool("filing.dependents") == true {
            return .init(rule: "dependents", reason: "Returns with dependents (and head of household status) are not something we prepare.", help: help)
        }
        if answers.bool("filing.claimedAsDependent") == true {
            return .init(rule: "claimed-as-dependent", reason: "A dependent's standard deduction is not among the figures we have checked, so we do not prepare that return.", help: help)
        }
        for (index, w2) in w2s.enumerated() {
            if let stop = W2Check.unsupported(w2, index: index) { return stop }
        }
        return nil
    }
}
