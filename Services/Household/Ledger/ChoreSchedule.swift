import Foundation
import HouseholdContract

/// When a chore is due next, on the calendar of its time zone: daily and weekly keep the local time
/// of day across daylight-saving changes; monthly keeps the day of the month of `anchor` (the first
/// due time), or the month's last day when it is shorter. Pure.
enum ChoreSchedule {
    /// The calendar of `timeZone` (an IANA name); nil when there is no such zone.
    static func calendar(_ timeZone: String) -> Calendar? {
        guard let zone = TimeZone(identifier: timeZone) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// The due time after `due`; nil for `once`.
    static func next(after due: Date, _ frequency: Household.Frequency, weekdays: [Int], anchor: Date, in calendar: Calendar) -> Date? {
        switch frequency {
        case .once:
            return nil
        case .daily:
            return calendar.date(byAdding: .day, value: 1, to: due)
        case .weekly:
            // The next day (of the following seven) whose weekday is chosen, at the same local time.
            for days in 1...7 {
                guard let day = calendar.date(byAdding: .day, value: days, to: due) else { return nil }
                if weekdays.contains(isoWeekday(day, calendar)) { return day }
            }
            return nil
        case .monthly:
            // Months from the anchor, so a chore due on the 31st is on the 31st again after a shorter month.
            let months = calendar.dateComponents([.month], from: calendar.startOfDay(for: anchor), to: calendar.startOfDay(for: due)).month ?? 0
            for step in 1...2 {
                if let next = calendar.date(byAdding: .month, value: months + step, to: anchor), next > due { return next }
            }
            return nil
        }
    }

    /// 1 for Monday to 7 for Sunday.
    static func isoWeekday(_ date: Date, _ calendar: Calendar) -> Int {
        (calendar.component(.weekday, from: date) + 5) % 7 + 1
    }

    /// `date` as the local `yyyy-MM-ddTHH:mm` of `calendar`'s zone (what a notifications schedule starts at).
    static func localMinute(_ date: Date, _ calendar: Calendar) -> String {
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02dT%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!)
    }
}
