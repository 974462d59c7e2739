import Foundation
import PostgresSupport
import ServiceKit
import ServiceSupport
import TaxFormContract

extension ServiceDefinition {
    /// `tax-form`: the student tax interview, residency and the 1040 / 1040-NR / 8843 return. Rules,
    /// questions and lists are data in `Data/`; a preview needs no account and stores nothing; a
    /// signed-in user's interviews are stored per tax year, sealed with the account's own key.
    public static let taxForm = ServiceDefinition(
        contract: TaxForm.self, schema: "tax_form", settings: Setting.taxFormSettings,
        deployment: ServiceDeployment(
            about: "the student tax interview as data, residency (exempt years, the substantial presence test), Form 1040 / 1040-NR line by line "
                + "and 8843; previews for anyone; saved interviews per user and year, versioned, sealed per account; deadlines and reminders; "
                + "the return as one PDF, downloaded or mailed"),
        migrations: { try Migration.load(bundle: .module) }
    ) { environment in
        let configuration = try environment.settings.taxFormConfiguration()
        let database = environment.requireDatabase()
        let engine = try InterviewEngine.bundled()
        let previews = PreviewHandlers(engine: engine)
        let suggestions = SuggestionHandlers(engine: engine, lists: try SuggestionLists.bundled(script: engine.script))
        let store = InterviewStore(database: database, keys: configuration.keys)
        let reminders = Reminders(database: database)
        let interviews = InterviewHandlers(database: database, store: store, engine: engine, reminders: reminders, now: environment.clock.now)
        let returnStore = ReturnStore(database: database, interviews: store)
        let returns = ReturnHandlers(
            database: database, store: store, returns: returnStore, engine: engine, bus: environment.bus,
            fillsPerHour: configuration.fillsPerHour)
        let erasure = AccountErasureHandler(database: database, store: store, returns: returnStore, reminders: reminders, now: environment.clock.now)

        var handlers = OperationHandlers(TaxForm.self, database: database)
        handlers.on(TaxForm.Preview.Make.self, previews.preview)
        handlers.on(TaxForm.Questions.List.self, previews.questions)
        handlers.on(TaxForm.Suggestions.List.self, suggestions.list)
        handlers.on(TaxForm.Interviews.Get.self, interviews.get)
        handlers.on(TaxForm.Interviews.Answer.self, interviews.answer)
        handlers.on(TaxForm.Interviews.AddW2.self, interviews.addW2)
        handlers.on(TaxForm.Interviews.History.self, interviews.history)
        handlers.on(TaxForm.Interviews.Version.self, interviews.version)
        handlers.on(TaxForm.Interviews.Delete.self, interviews.delete)
        handlers.on(TaxForm.Interviews.Filed.self, interviews.filed)
        handlers.on(TaxForm.Deadlines.Get.self, interviews.deadlines)
        handlers.on(TaxForm.Returns.Pdf.self, returns.pdf)
        let myData = MyDataHandlers(database: database, store: store, returns: returnStore, bus: environment.bus, now: environment.clock.now)
        handlers.on(TaxForm.MyData.Export.self, myData.export)
        handlers.on(TaxForm.MyData.Reads.self, myData.reads)
        handlers.once(TaxForm.Returns.Email.self, prepare: returns.prepareEmail, apply: returns.email)
        handlers.on(TaxForm.Account.Erase.self, erasure.erase)
        let prune = PeriodicJob("returns.prune", every: .seconds(600), database: database) { try await returnStore.prune(on: $0) }
        return ServiceParts(handlers: handlers, jobs: [prune, .rewrappingAccountKeys(database: database, ring: configuration.keys)])
    }
}
