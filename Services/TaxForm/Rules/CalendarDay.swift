import Envelope
import Foundation

/// Days as `YYYY-MM-DD` on the Gregorian calendar in UTC: the form of every date the tax data, the
/// answers and the replies hold.
enum CalendarDay {
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar
    }()

    /// The start of the day `text` names; nil unless it is `YYYY-MM-DD` and a real date.
    static func date(_ text: String) -> Date? {
        guard let day = RFC3339.fullDate(from: text) else { return nil }
        return calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day))
    }

    static func text(_ date: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    /// The day `days` after (or, negative, before) the day `text` names.
    static func adding(_ days: Int, to text: String) -> String {
        Self.text(calendar.date(byAdding: .day, value: days, to: date(text)!)!)
    }
}
