import Foundation
import NotificationsContract
import PostgresNIO
import PostgresSupport
import TaxFormContract

/// Deadline reminders as notifications schedules, queued through the outbox in the transaction of
/// the change that moved them: 30, 7 and 1 days before, at 10:00 in the user's time zone; cancelled
/// when the return is marked filed or the interview goes. Each change carries a revision (the
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
        guard let new else { return try await cancel(account: account, year: year, now: now, on: connection) }
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

    func cancel(account: UUID, year: Int, now: Date, on connection: PostgresConnection) async throws {
        for days in DeadlinePlan.reminderDays {
            try await database.enqueue(
                Notifications.Schedule.Cancel.self, .init(key: Self.key(account: account, year: year, daysBefore: days), revision: Self.revision(now)),
                on: connection)
        }
    }
}
