import Foundation
import TaxFormContract

/// Which filing deadline applies to an assessed interview, and the reminders before it.
public struct DeadlinePlan: Sendable, Equatable {
    /// `YYYY-MM-DD`, moved past weekends and Washington DC holidays.
    public var due: String
    public var reason: String

    /// Days before the deadline a reminder goes out.
    public static let reminderDays = [30, 7, 1]

    /// The plan for `assessment`, once its forms are decided and nothing stops it.
    public static func plan(_ assessment: TaxForm.Assessment, answers: TaxForm.Answers, rules: TaxYearRules) -> DeadlinePlan? {
        guard let decision = assessment.decision, assessment.stop == nil, !decision.forms.isEmpty else { return nil }
        let year = rules.year
        let forms = decision.forms.map(\.rawValue).joined(separator: " and ")
        if decision.forms.contains(.f1040) {
            return .init(due: rules.deadlines.due(.wages, taxYear: year), reason: "Form 1040 is due on April 15, or the next business day.")
        }
        let wages = InterviewEngine.w2s(answers["income.w2s"] ?? .list([])).contains { $0.wagesCents > 0 }
        if decision.forms.contains(.f1040NR), wages {
            return .init(due: rules.deadlines.due(.wages, taxYear: year), reason: "Form 1040-NR with wages is due on April 15, or the next business day.")
        }
        return .init(due: rules.deadlines.due(.withoutWages, taxYear: year),
                     reason: "\(forms) without wages \(decision.forms.count == 1 ? "is" : "are") due on June 15, or the next business day.")
    }

    /// The reminder dates (`YYYY-MM-DD`) by days before the deadline.
    public var reminders: [(daysBefore: Int, date: String)] {
        Self.reminderDays.map { ($0, Self.day(due, plus: -$0)) }
    }

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar
    }()

    static func day(_ date: String, plus days: Int) -> String {
        let parts = date.split(separator: "-").compactMap { Int($0) }
        let day = calendar.date(byAdding: .day, value: days, to: calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))!)!
        let c = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    /// `date` as `YYYY-MM-DD` in UTC.
    static func text(_ date: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }
}
