import Envelope
import Foundation
import NotificationsContract
import PostgresNIO
import PostgresSupport
import TaxFormContract

/// Deadline reminders as notifications schedules, queued through the outbox in the transaction of
/// the change that moved them: 30, 7 and 1 days before, at 10:00 in the user's time zone, and a nudge
/// a week after the last change of an unfinished interview; cancelled when the return is marked filed
/// or the interview goes. Each change carries a revision (the
/// microsecond of the change, which the interview's lock orders), so notifications ignores an older
/// change the outbox delivers after a newer one.
struct Reminders: Sendable {
    let database: Database
    /// Local time of day the reminders go out.
    static let time = "10:00"

    static func key(account: UUID, year: Int, daysBefore: Int) -> String {
        "tax-deadline-\(year)-\(daysBefore)d-\(account.uuidString.lowercased())"
    }

    static func revision(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) }

    /// Moves the reminders from `old` to `new` (either may be nil) at `now`; reminders on days before
    /// today are not set.
    func move(account: UUID, year: Int, from old: DeadlinePlan?, to new: DeadlinePlan?, now: Date, on connection: PostgresConnection) async throws {
        guard old != new else { return }
        guard let new else { return try await cancel(Self.deadlineKeys(account: account, year: year), now: now, on: connection) }
        let today = CalendarDay.text(now), revision = Self.revision(now)
        for (days, date) in new.reminders {
            let key = Self.key(account: account, year: year, daysBefore: days)
            guard date >= today else {
                if old != nil { try await database.enqueue(Notifications.Schedule.Cancel.self, .init(key: key, revision: revision), on: connection) }
                continue
            }
            let when = days == 1 ? "tomorrow" : "in \(days) days"
            try await database.enqueue(Notifications.Schedule.Set.self, .init(
                key: key, recipient: account.uuidString.lowercased(), start: "\(date)T\(Self.time)",
                content: .init(
                    app: Notifications.EventType.taxDeadline.app, eventType: Notifications.EventType.taxDeadline.name,
                    category: Notifications.EventType.taxDeadline.category,
                    alert: .init(title: "Your \(year) tax forms are due \(when)", body: "\(new.reason) Mark them filed in the app once they are in the mail."),
                    collapseKey: "tax-deadline-\(year)"),
                revision: revision), on: connection)
        }
    }

    /// Days after an interview's last change that a nudge to finish it goes out.
    static let unfinishedAfterDays = 7

    static func unfinishedKey(account: UUID, year: Int) -> String {
        "tax-unfinished-\(year)-\(account.uuidString.lowercased())"
    }

    /// The nudge to finish an interview: a week after its last change, at 10:00 local time, while
    /// questions are still to answer or skip, nothing stops it and that day is before `due` (its deadline, or April 15's
    /// while its forms are undecided). Each change moves it; finishing, filing or deleting ends it.
    func nudge(account: UUID, year: Int, assessment: TaxForm.Assessment, due: String, now: Date, on connection: PostgresConnection) async throws {
        let key = Self.unfinishedKey(account: account, year: year), revision = Self.revision(now)
        let day = CalendarDay.adding(Self.unfinishedAfterDays, to: CalendarDay.text(now))
        let unanswered = assessment.missing.filter { !$0.skipped }.count
        guard unanswered > 0, assessment.stop == nil, day < due else {
            return try await cancel([key], now: now, on: connection)
        }
        let left = unanswered
        try await database.enqueue(Notifications.Schedule.Set.self, .init(
            key: key, recipient: account.uuidString.lowercased(), start: "\(day)T\(Self.time)",
            content: .init(
                app: Notifications.EventType.taxDeadline.app, eventType: Notifications.EventType.taxDeadline.name,
                category: Notifications.EventType.taxDeadline.category,
                alert: .init(
                    title: "Your \(year) tax interview is waiting",
                    body: "\(left) question\(left == 1 ? " is" : "s are") left, and your forms are due \(due). Pick up where you left off on any device."),
                collapseKey: "tax-unfinished-\(year)"),
            revision: revision), on: connection)
    }

    /// Ends every reminder of the interview: the deadline's and the nudge to finish it.
    func cancel(account: UUID, year: Int, now: Date, on connection: PostgresConnection) async throws {
        try await cancel(Self.deadlineKeys(account: account, year: year) + [Self.unfinishedKey(account: account, year: year)], now: now, on: connection)
    }

    static func deadlineKeys(account: UUID, year: Int) -> [String] {
        DeadlinePlan.reminderDays.map { key(account: account, year: year, daysBefore: $0) }
    }

    private func cancel(_ keys: [String], now: Date, on connection: PostgresConnection) async throws {
        for key in keys {
            try await database.enqueue(Notifications.Schedule.Cancel.self, .init(key: key, revision: Self.revision(now)), on: connection)
        }
    }
}
