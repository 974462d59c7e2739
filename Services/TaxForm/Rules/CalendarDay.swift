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
        guard text.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil else { return nil }
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])), self.text(date) == text else { return nil }
        return date
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
