import Bus
import Contracts
import Envelope
import TaxFormContract

/// `tax-form.suggestions.list.v1`: the autocomplete lists, for anyone; nothing personal.
struct SuggestionHandlers: Sendable {
    let engine: InterviewEngine
    let lists: SuggestionLists

    @Sendable
    func list(_ request: TaxForm.Suggestions.List.Request, _ context: RequestContext) async throws -> TaxForm.Suggestions.List.Response {
        var validation = Validation()
        let list = lists.lists[request.list]
        validation.check(list != nil, "data.list", "must be one of \(TaxForm.Suggestions.lists.joined(separator: ", "))")
        let prefix = request.prefix ?? ""
        let state = request.state?.uppercased()
        if let state {
            validation.check(request.list == "institutions", "data.state", "only narrows the institutions list")
            validation.check(lists.lists["states"]!.entries.contains { $0.suggestion.code == state }, "data.state", "must be a US state's two-letter code")
        }
        let year = request.taxYear.map { engine.checkedYear($0, &validation) } ?? engine.rules.years.keys.max()
        let limit = request.limit ?? PageRequest.defaultLimit, offset = request.after ?? 0
        try validation.finish()

        let found = lists.search(list!, prefix: prefix, state: state)
        var items = found.dropFirst(offset).prefix(limit).map(\.suggestion)
        var source = list!.source
        if request.list == "countries", let year, let rules = engine.rules.years[year] {
            for index in items.indices {
                guard let treaty = rules.treaty(items[index].code) else { continue }
                items[index].treaty = .init(article: treaty.article, benefit: treaty.described)
            }
            source += ". treaty: the student treaty benefits this service applies in \(year); other countries' treaties may help too (IRS Publication 901)"
        }
        return .init(list: request.list, items: Array(items), nextAfter: offset + limit < found.count ? offset + limit : nil, source: source)
    }
}
