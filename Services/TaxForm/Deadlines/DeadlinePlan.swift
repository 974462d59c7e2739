import Envelope
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
        let wages = InterviewEngine.w2s(answers["income.w2s"]).contains { $0.wagesCents > 0 }
        if decision.forms.contains(.f1040NR), wages {
            return .init(due: rules.deadlines.due(.wages, taxYear: year), reason: "Form 1040-NR with wages is due on April 15, or the next business day.")
        }
        return .init(due: rules.deadlines.due(.withoutWages, taxYear: year),
                     reason: "\(forms) without wages \(decision.forms.count == 1 ? "is" : "are") due on June 15, or the next business day.")
    }

    /// The reminder dates (`YYYY-MM-DD`) by days before the deadline.
    public var reminders: [(daysBefore: Int, date: String)] {
        Self.reminderDays.map { ($0, CalendarDay.adding(-$0, to: due)) }
    }
}
