import ServiceKit
import TaxFormContract

extension ServiceDefinition {
    /// `tax-form`: the student tax interview, residency and the 1040 / 1040-NR / 8843 return. Rules,
    /// questions and lists are data in `Data/`; a preview needs no account and stores nothing.
    public static let taxForm = ServiceDefinition(
        contract: TaxForm.self, summary: "the student tax interview, residency, and the 1040 / 1040-NR / 8843 return.",
        schema: nil, settings: [], migrations: { [] }
    ) { _ in
        let previews = PreviewHandlers(engine: try InterviewEngine.bundled())
        var handlers = OperationHandlers(TaxForm.self, database: nil)
        handlers.on(TaxForm.Preview.Make.self, previews.preview)
        handlers.on(TaxForm.Questions.List.self, previews.questions)
        return ServiceParts(handlers: handlers)
    }
}
