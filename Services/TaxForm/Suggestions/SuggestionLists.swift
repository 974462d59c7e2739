import Foundation
import TaxFormContract

/// The autocomplete lists, loaded once from `Data/`: countries (ISO 3166-1), US states (ISO 3166-2:US),
/// the visa question's choices and US colleges and universities (NCES IPEDS), each entry with the
/// folded text it is found by.
struct SuggestionLists: Sendable {
    struct Entry: Sendable {
        let suggestion: TaxForm.Suggestion
        /// Name, code and aliases, folded: lowercase, no accents, runs of anything else one space.
        let name: String
        let keys: [String]
        let state: String?
    }

    struct List: Sendable {
        let entries: [Entry]
        let source: String
    }

    let lists: [String: List]

    /// The lists shipped in the module's `Data` folder; the visa types are the interview's own choices.
    static func bundled(script: InterviewScript) throws -> SuggestionLists {
        let folder = Bundle.module.resourceURL!.appendingPathComponent("Data")
        func read<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
            try JSONDecoder().decode(T.self, from: Data(contentsOf: folder.appendingPathComponent(name)))
        }
        let countries = try read(InterviewEngine.CodeList.self, "countries.json"), states = try read(InterviewEngine.CodeList.self, "states.json")
        let institutions = try read(InstitutionFile.self, "institutions.json")
        guard let visa = script.questions.first(where: { $0.id == "visa" }) else { throw MissingList(name: "the visa question") }
        return SuggestionLists(lists: [
            "countries": List(entries: countries.entries.map { Entry(code: $0.code, name: $0.name) }, source: countries.source),
            "states": List(entries: states.entries.map { Entry(code: $0.code, name: $0.name) }, source: states.source),
            "visa-types": List(
                entries: (visa.choices ?? []).map { Entry(code: $0.value, name: $0.label) },
                source: "The interview's visa question (Data/interview.json): the statuses its residency rules know"),
            "institutions": List(entries: institutions.institutions.map(Entry.init), source: institutions.source),
        ])
    }

    struct MissingList: Error, CustomStringConvertible {
        let name: String
        var description: String { "the suggestion data lacks \(name)" }
    }

    /// Entries of `list` found by `prefix` (all of them when it is empty), best first: those whose code
    /// or an alias is the prefix (`IN`, `MIT`), then those whose name starts with it, then those whose
    /// code or an alias does, then those with a word of the name that does; in list order within each.
    /// `state` keeps the institutions of one state.
    func search(_ list: List, prefix: String, state: String?) -> [Entry] {
        let folded = Self.fold(prefix)
        var ranked: [[Entry]] = [[], [], [], []]
        for entry in list.entries where state == nil || entry.state == state {
            if folded.isEmpty || entry.keys.contains(folded) {
                ranked[0].append(entry)
            } else if entry.name.hasPrefix(folded) {
                ranked[1].append(entry)
            } else if entry.keys.contains(where: { $0.hasPrefix(folded) }) {
                ranked[2].append(entry)
            } else if entry.name.contains(" " + folded) {
                ranked[3].append(entry)
            }
        }
        return ranked.flatMap { $0 }
    }

    /// Lowercase, without accents, every run of characters other than letters and digits one space.
    static func fold(_ text: String) -> String {
        let plain = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: Locale(identifier: "en_US_POSIX"))
        return plain.split { !$0.isLetter && !$0.isNumber }.joined(separator: " ")
    }

    /// `institutions.json` (made by `deploy/data/tax-form-institutions.py`).
    struct InstitutionFile: Decodable {
        struct Institution: Decodable {
            let id: String
            let name: String
            let line1: String
            let city: String
            let state: String
            let postalCode: String
            let phone: String?
            let aliases: [String]?
        }

        let source: String
        let institutions: [Institution]
    }
}

extension SuggestionLists.Entry {
    init(code: String, name: String) {
        self.init(suggestion: .init(code: code, name: name), name: SuggestionLists.fold(name), keys: [SuggestionLists.fold(code)], state: nil)
    }

    init(_ institution: SuggestionLists.InstitutionFile.Institution) {
        self.init(
            suggestion: .init(
                code: institution.id, name: institution.name,
                address: .init(line1: institution.line1, city: institution.city, state: institution.state, postalCode: institution.postalCode, country: "US"),
                phone: institution.phone),
            name: SuggestionLists.fold(institution.name), keys: (institution.aliases ?? []).map(SuggestionLists.fold), state: institution.state)
    }
}
