import Foundation
import TaxFormContract

/// The interview as data (`Data/interview.json`): sections, and questions in the order they are asked,
/// each with when it applies, how its answer is checked and what skipping it leaves out.
public struct InterviewScript: Decodable, Sendable {
    public let sections: [Section]
    public let questions: [ScriptQuestion]

    public struct Section: Decodable, Sendable {
        public let id: String
        public let title: String
    }

    public struct ScriptQuestion: Decodable, Sendable {
        public let id: String
        public let section: String
        public let kind: TaxForm.Kind
        /// `{year}`, `{year-1}` ... `{year-6}` become the years.
        public let prompt: String
        public let help: String
        public let choices: [TaxForm.Choice]?
        /// Money and counts: the range; text: the length.
        public let minimum: Int64?
        public let maximum: Int64?
        /// Text: a regular expression the whole answer matches, and what it means in words.
        public let pattern: String?
        public let patternMeaning: String?
        /// The forms decision needs it (not skippable; its condition may use decision facts only).
        public let decides: Bool
        public let leavesOut: String?
        /// Asked only when this holds; always when absent.
        public let when: Condition?
        /// Tax years it applies to; all when absent.
        public let fromYear: Int?
        public let toYear: Int?
        /// Kept encrypted and shown masked: an SSN or ITIN, a date of birth, a passport or account number.
        public let sensitive: Bool?
        /// About the person, not the year (name, addresses, school): a new year's interview can take
        /// the answer from the latest earlier one.
        public let carriesOver: Bool?

        public func applies(to year: Int) -> Bool { (fromYear ?? .min) <= year && year <= (toYear ?? .max) }

        /// The question as a client sees it, for `year`.
        public func view(year: Int) -> TaxForm.Question {
            func filled(_ text: String) -> String {
                var text = text
                for offset in (1...6).reversed() { text = text.replacingOccurrences(of: "{year-\(offset)}", with: "\(year - offset)") }
                return text.replacingOccurrences(of: "{year}", with: "\(year)")
            }
            return TaxForm.Question(
                id: id, section: section, kind: kind, prompt: filled(prompt), help: filled(help),
                choices: choices?.map { .init(value: $0.value, label: filled($0.label)) }, minimum: minimum, maximum: maximum,
                decides: decides, leavesOut: leavesOut.map(filled))
        }
    }

    /// When a question applies: on earlier answers and on facts the service derives.
    public indirect enum Condition: Decodable, Sendable {
        /// `{"answer": id, "is": value}`
        case answerIs(String, TaxForm.Answer)
        /// `{"answer": id, "in": [values]}`
        case answerIn(String, [TaxForm.Answer])
        /// `{"fact": name}`: see `InterviewFacts`.
        case fact(String)
        case all([Condition])
        case any([Condition])
        case not(Condition)

        enum Keys: String, CodingKey {
            case answer, `is`, `in`, fact, all, any, not
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            if let id = try container.decodeIfPresent(String.self, forKey: .answer) {
                if let values = try container.decodeIfPresent([TaxForm.Answer].self, forKey: .in) {
                    self = .answerIn(id, values)
                } else {
                    self = .answerIs(id, try container.decode(TaxForm.Answer.self, forKey: .is))
                }
            } else if let fact = try container.decodeIfPresent(String.self, forKey: .fact) {
                self = .fact(fact)
            } else if let all = try container.decodeIfPresent([Condition].self, forKey: .all) {
                self = .all(all)
            } else if let any = try container.decodeIfPresent([Condition].self, forKey: .any) {
                self = .any(any)
            } else {
                self = .not(try container.decode(Condition.self, forKey: .not))
            }
        }

        func holds(_ answers: TaxForm.Answers, _ facts: Set<String>) -> Bool {
            switch self {
            case .answerIs(let id, let value): answers[id] == value
            case .answerIn(let id, let values): answers[id].map(values.contains) ?? false
            case .fact(let name): facts.contains(name)
            case .all(let conditions): conditions.allSatisfy { $0.holds(answers, facts) }
            case .any(let conditions): conditions.contains { $0.holds(answers, facts) }
            case .not(let condition): !condition.holds(answers, facts)
            }
        }

        /// Every answer and fact the condition reads.
        var references: (answers: [String], facts: [String]) {
            switch self {
            case .answerIs(let id, _), .answerIn(let id, _): ([id], [])
            case .fact(let name): ([], [name])
            case .all(let conditions), .any(let conditions):
                conditions.map(\.references).reduce(([], [])) { ($0.0 + $1.0, $0.1 + $1.1) }
            case .not(let condition): condition.references
            }
        }
    }

    struct Inconsistent: Error, CustomStringConvertible {
        let description: String
    }

    /// Checks that ids are unique, sections and referenced questions exist and come earlier, facts are
    /// known, choices have values, and a deciding question depends on deciding answers and facts only.
    func check() throws {
        var seen: [String: ScriptQuestion] = [:]
        let sectionIDs = Set(sections.map(\.id))
        for question in questions {
            guard seen[question.id] == nil else { throw Inconsistent(description: "question \(question.id) twice") }
            guard sectionIDs.contains(question.section) else { throw Inconsistent(description: "\(question.id): no section \(question.section)") }
            guard (question.kind == .choice) == (question.choices?.isEmpty == false) else {
                throw Inconsistent(description: "\(question.id): a choice question, and only one, lists choices")
            }
            if let condition = question.when {
                let (answers, facts) = condition.references
                for id in answers {
                    guard let earlier = seen[id] else { throw Inconsistent(description: "\(question.id) depends on \(id), which is not asked before it") }
                    if question.decides, !earlier.decides { throw Inconsistent(description: "deciding \(question.id) depends on \(id), which does not decide") }
                }
                for fact in facts {
                    guard InterviewFacts.decisionFacts.contains(fact) || InterviewFacts.returnFacts.contains(fact) else {
                        throw Inconsistent(description: "\(question.id): no fact \(fact)")
                    }
                    if question.decides, !InterviewFacts.decisionFacts.contains(fact) {
                        throw Inconsistent(description: "deciding \(question.id) depends on \(fact), known only after the decision")
                    }
                }
            }
            seen[question.id] = question
        }
    }
}
