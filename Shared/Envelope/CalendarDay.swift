import Foundation

/// Days as `YYYY-MM-DD` (and months as `YYYY-MM`) on the Gregorian calendar in UTC: the form of every
/// date the tax data, answers, bills and replies hold.
public enum CalendarDay {
    public static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar
    }()

    /// The start of the day `text` names; nil unless it is `YYYY-MM-DD` and a real date.
    public static func date(_ text: String) -> Date? {
        guard let day = RFC3339.fullDate(from: text) else { return nil }
        return calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day))
    }

    public static func text(_ date: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    /// The day `days` after (or, negative, before) the day `text` names.
    public static func adding(_ days: Int, to text: String) -> String {
        Self.text(calendar.date(byAdding: .day, value: days, to: date(text)!)!)
    }

    /// The same day `months` later (or the month's last day when it has no such day: 31 January and
    /// a month is 28 or 29 February).
    public static func adding(months: Int, to text: String) -> String {
        Self.text(calendar.date(byAdding: .month, value: months, to: date(text)!)!)
    }

    /// The instants of the month `text` names (`2026-11`); nil unless it is `YYYY-MM`.
    public static func month(_ text: String) -> DateInterval? {
        guard text.count == 7, let start = date(text + "-01"), let end = calendar.date(byAdding: .month, value: 1, to: start) else { return nil }
        return DateInterval(start: start, end: end)
    }
}
