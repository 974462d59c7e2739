import TaxFormContract

extension InterviewEngine {
    /// `answers` as replies show them: an SSN or ITIN as `***-**-1234`, a sensitive date as
    /// `****-MM-DD`, other sensitive text as its last four characters, a W-2's employee number masked.
    public func masked(_ answers: TaxForm.Answers) -> TaxForm.Answers {
        answers.reduce(into: [:]) { out, entry in out[entry.key] = masked(entry.value, question: entry.key) }
    }

    func masked(_ answer: TaxForm.Answer, question id: String) -> TaxForm.Answer {
        guard let question = check.questions[id] else { return answer }
        switch (question.kind, answer) {
        case (.tin, .text(let text)):
            return .text(Self.maskedTIN(text))
        case (.w2List, .list(let items)):
            return .list(items.map { item in
                guard case .object(var w2) = item, case .text(let tin)? = w2["employeeTIN"] else { return item }
                w2["employeeTIN"] = .text(Self.maskedTIN(tin))
                return .object(w2)
            })
        case (.date, .text(let text)) where question.sensitive == true:
            return .text("****" + text.dropFirst(4))
        case (_, .text(let text)) where question.sensitive == true:
            return .text(String(repeating: "*", count: max(0, text.count - 4)) + text.suffix(4))
        default:
            return answer
        }
    }

    /// One item of a list answer (a W-2 of `income.w2s`), masked as it is in its list.
    func masked(_ item: TaxForm.Answer, itemOf id: String) -> TaxForm.Answer {
        guard case .list(let items) = masked(.list([item]), question: id), let first = items.first else { return item }
        return first
    }

    static func maskedTIN(_ text: String) -> String { "***-**-" + text.suffix(4) }
}
