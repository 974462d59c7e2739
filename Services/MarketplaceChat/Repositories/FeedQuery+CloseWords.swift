import PostgresNIO
import PostgresSupport

/// A search whose words found nothing, searched again as the words of the network's titles close to
/// them: every one above pg_trgm's similarity threshold, not only the closest ("calculas" is as near
/// "calculator" as "calculus", and a typo is not to find the one it was not meant for alone). A
/// listing matches one close word of each word, and ranks by its text rank times how close the words
/// it matched are.
extension FeedQuery {
    /// A word of the network's titles near a word searched for, and how near (pg_trgm's similarity).
    struct CloseWord: Equatable, Sendable {
        let word: String
        let closeness: Float
    }

    /// The close words kept for each word, the closest first: a bound on the query a search of many
    /// short words builds (a two-letter word is near most words of three or four letters that begin
    /// with it).
    static let closeWordsPerWord = 5

    /// For each of `words`, in their order, the close words of the network's titles, the closest
    /// first; a word with none is left out.
    static func closeWords(to words: String, in university: String, on connection: PostgresConnection, database: Database) async throws
        -> [[CloseWord]]
    {
        let rows = try await connection.query(
            """
            SELECT q.n, fix.word, fix.closeness
            FROM unnest(regexp_split_to_array(lower(\(words)), '[^[:alnum:]]+')) WITH ORDINALITY AS q(w, n)
            CROSS JOIN LATERAL (
                SELECT t.word, extensions.similarity(t.word, q.w) AS closeness FROM title_words t
                WHERE t.university_id = \(university) AND t.word OPERATOR(extensions.%) q.w
                ORDER BY closeness DESC, t.word LIMIT \(closeWordsPerWord)) fix
            ORDER BY q.n, fix.closeness DESC, fix.word
            """,
            logger: database.logger)
        var found: [[CloseWord]] = []
        var place: Int64?
        for try await (n, word, closeness) in rows.decode((Int64, String, Float).self) {
            if n != place {
                found.append([])
                place = n
            }
            found[found.count - 1].append(CloseWord(word: word, closeness: closeness))
        }
        return found
    }

    /// The SQL of a search for `correction`, its words bound in `binds`: the condition (any close
    /// word of each word), the rank, and which close words a listing matched (an int[] of their
    /// places, counted across all words in order, as `searchedFor` reads them).
    static func closeWordsSQL(_ correction: [[CloseWord]], binds: inout PostgresBindings) -> (condition: String, rank: String, matched: String) {
        var anyOf: [String] = [], closeness: [String] = [], matched: [String] = []
        var place = 0
        for words in correction {
            var queries: [String] = [], scores: [String] = []
            for close in words {
                let query = "plainto_tsquery('english'::regconfig, \(binds.placeholder(close.word)))"
                queries.append(query)
                scores.append("CASE WHEN l.search_doc @@ \(query) THEN \(binds.placeholder(close.closeness))::real ELSE 0::real END")
                matched.append("CASE WHEN l.search_doc @@ \(query) THEN \(place) END")
                place += 1
            }
            anyOf.append("(\(queries.joined(separator: " || ")))")
            closeness.append("GREATEST(\(scores.joined(separator: ", ")))")
        }
        let query = anyOf.joined(separator: " && ")
        return (
            condition: "l.search_doc @@ (\(query))",
            rank: "(ts_rank(l.search_doc, \(query)) * \(closeness.joined(separator: " * ")))::real",
            matched: "array_remove(ARRAY[\(matched.joined(separator: ", "))]::int[], NULL)")
    }

    /// What the page says it searched for: of each word, the close words its listings matched
    /// (`matched`, their places), the closest first, joined by "or" ("calculator or calculus");
    /// nil without a correction or a match. Only what found a listing the caller sees is named: the
    /// vocabulary may hold words of listings they do not (a blocked seller's).
    func searchedFor(_ matched: Set<Int>) -> String? {
        guard let correction else { return nil }
        var place = 0
        var said: [String] = []
        for words in correction {
            var found: [String] = []
            for close in words {
                if matched.contains(place) { found.append(close.word) }
                place += 1
            }
            if !found.isEmpty { said.append(found.joined(separator: " or ")) }
        }
        return said.isEmpty ? nil : said.joined(separator: " ")
    }
}
