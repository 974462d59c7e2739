import Bus
import Envelope
import TaxFormContract

/// `tax-form.preview.make.v1` and `tax-form.questions.list.v1`: answers from the rules and the
/// interview alone, for anyone, storing nothing.
struct PreviewHandlers: Sendable {
    let engine: InterviewEngine

    @Sendable
    func preview(_ request: TaxForm.Preview.Make.Request, _ context: RequestContext) async throws -> TaxForm.Assessment {
        var validation = Validation()
        let year = engine.checkedYear(request.taxYear, &validation)
        let (answers, issues) = engine.checked(request.answers, year: year ?? request.taxYear, at: "data.answers")
        for issue in issues { validation.fail(issue.field, issue.message) }
        let known = Set(engine.script.questions.map(\.id))
        for (index, id) in (request.skipped ?? []).enumerated() where !known.contains(id) {
            validation.fail("data.skipped[\(index)]", "is not a question of the interview")
        }
        try validation.finish()
        return engine.assess(answers, skipped: Set(request.skipped ?? []), year: year!)
    }

    @Sendable
    func questions(_ request: TaxForm.Questions.List.Request, _ context: RequestContext) async throws -> TaxForm.Questions.List.Response {
        let taxYear = try engine.checkedYear(request.taxYear ?? engine.rules.years.keys.max()!)
        return .init(
            taxYear: taxYear, taxYears: engine.rules.years.keys.sorted(), rulesVersion: engine.version,
            sections: engine.script.sections.map { .init(id: $0.id, title: $0.title) }, questions: engine.questions(year: taxYear))
    }
}
