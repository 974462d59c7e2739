import Foundation
import NotificationsContract
@testable import NotificationsService
import Testing

/// When schedules fire and when quiet hours end, in the user's time zone.
@Suite(.timeLimit(.minutes(1))) struct ScheduleTests {
    static let dublin = TimeZone(identifier: "Europe/Dublin")!

    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    static func recurrence(_ start: String, _ frequency: Notifications.Schedule.Frequency?, interval: Int? = nil, until: String? = nil,
                           count: Int? = nil, zone: String = "Europe/Dublin") throws -> Recurrence {
        let request = Notifications.Schedule.Set.Request(
            key: "k", recipient: UUID().uuidString.lowercased(), start: start,
            repeat: frequency.map { .init(frequency: $0, interval: interval, until: until, count: count) },
            content: .init(app: .melon, eventType: "tax.deadline.reminder", category: "deadlines", alert: .init(title: "t")))
        return try Recurrence.of(request, timeZone: zone).get()
    }

    @Test func dailyKeepsTheLocalTimeAcrossTheSpringChange() throws {
        // Ireland moves to IST (UTC+1) on 29 March 2026.
        let daily = try Self.recurrence("2026-03-28T09:00", .daily)
        #expect(daily.occurrence(0) == Self.date("2026-03-28T09:00:00Z"))
        #expect(daily.occurrence(1) == Self.date("2026-03-29T08:00:00Z"))
    }

    @Test func aLocalTimeSkippedByTheChangeMovesToTheNextThatExists() throws {
        let once = try Self.recurrence("2026-03-29T01:30", nil)
        #expect(once.occurrence(0) == Self.date("2026-03-29T01:00:00Z"), "02:00 IST, the first local time after 01:00 GMT")
        #expect(once.occurrence(1) == nil)
    }

    @Test func monthlyKeepsTheDayWhereTheMonthHasIt() throws {
        let monthly = try Self.recurrence("2027-01-31T10:00", .monthly, zone: "UTC")
        #expect((0..<4).map { monthly.occurrence($0) } == [
            Self.date("2027-01-31T10:00:00Z"), Self.date("2027-02-28T10:00:00Z"), Self.date("2027-03-31T10:00:00Z"), Self.date("2027-04-30T10:00:00Z"),
        ])
    }

    @Test func intervalsCountsAndUntilEndIt() throws {
        let weekly = try Self.recurrence("2027-01-04T18:00", .weekly, interval: 2, count: 3, zone: "UTC")
        #expect((0..<4).map { weekly.occurrence($0) } == [
            Self.date("2027-01-04T18:00:00Z"), Self.date("2027-01-18T18:00:00Z"), Self.date("2027-02-01T18:00:00Z"), nil,
        ])
        let until = try Self.recurrence("2027-01-04T18:00", .daily, until: "2027-01-06", zone: "UTC")
        #expect(until.occurrence(2) == Self.date("2027-01-06T18:00:00Z") && until.occurrence(3) == nil)
        #expect(until.next(atOrAfter: Self.date("2027-01-05T18:00:01Z"), from: 0)?.index == 2)
    }

    @Test func badTimesNameTheirField() {
        let request = Notifications.Schedule.Set.Request(
            key: "k", recipient: "r", start: "2027-02-30T09:00", content: .init(app: .melon, eventType: "a.b", category: "c"))
        #expect(throws: RecurrenceProblem(field: "data.start", message: "is not a real date and time")) { try Recurrence.of(request, timeZone: "UTC").get() }
        #expect(throws: RecurrenceProblem(field: "data.timeZone", message: "is not a time zone this server knows")) {
            try Recurrence.of(request, timeZone: "Mars/Olympus").get()
        }
    }

    @Test func quietHoursHoldUntilTheirLocalEnd() {
        let night = QuietWindow(start: 22 * 60, end: 7 * 60, timeZone: Self.dublin)
        // 23:30 IST on 1 July is 22:30 UTC: held until 07:00 IST the next day.
        #expect(night.release(Self.date("2026-07-01T22:30:00Z")) == Self.date("2026-07-02T06:00:00Z"))
        #expect(night.release(Self.date("2026-07-01T05:00:00Z")) == Self.date("2026-07-01T06:00:00Z"))
        #expect(night.release(Self.date("2026-07-01T12:00:00Z")) == Self.date("2026-07-01T12:00:00Z"))
        let afternoon = QuietWindow(start: 13 * 60, end: 14 * 60, timeZone: TimeZone(identifier: "UTC")!)
        #expect(afternoon.release(Self.date("2026-07-01T13:59:00Z")) == Self.date("2026-07-01T14:00:00Z"))
    }
}
