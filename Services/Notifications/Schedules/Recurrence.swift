import Foundation
import NotificationsContract

/// When a schedule fires: a local date and time in a time zone, once or every `interval` days,
/// weeks or months, until a local day or for a number of times. Occurrence n is computed from the
/// start (not from the one before), so months keep their day where they can (the 31st becomes the
/// 30th in April and the 31st again in May) and a daylight-saving change moves no later occurrence.
public struct Recurrence: Sendable, Equatable {
    public let start: DateComponents
    public let timeZone: TimeZone
    public let frequency: Notifications.Schedule.Frequency?
    public let interval: Int
    /// The last local day, inclusive.
    public let until: DateComponents?
    public let count: Int?

    public init(start: DateComponents, timeZone: TimeZone, frequency: Notifications.Schedule.Frequency?, interval: Int = 1,
                until: DateComponents? = nil, count: Int? = nil) {
        self.start = start
        self.timeZone = timeZone
        self.frequency = frequency
        self.interval = interval
        self.until = until
        self.count = count
    }

    /// The schedule a `schedule.set` request describes, or what is wrong with it (field, message).
    public static func of(_ request: Notifications.Schedule.Set.Request, timeZone name: String) -> Result<Recurrence, RecurrenceProblem> {
        guard let timeZone = TimeZone(identifier: name) else { return .failure(.init(field: "data.timeZone", message: "is not a time zone this server knows")) }
        guard let start = localDateTime(request.start) else { return .failure(.init(field: "data.start", message: "is not a real date and time")) }
        var until: DateComponents?
        if let text = request.repeat?.until {
            guard let day = localDateTime(text + "T00:00") else { return .failure(.init(field: "data.repeat.until", message: "is not a real day")) }
            until = day
        }
        return .success(Recurrence(
            start: start, timeZone: timeZone, frequency: request.repeat?.frequency, interval: request.repeat?.interval ?? 1, until: until,
            count: request.repeat == nil ? 1 : request.repeat?.count))
    }

    /// `yyyy-MM-ddTHH:mm` as date components, when it names a real day.
    static func localDateTime(_ text: String) -> DateComponents? {
        guard let match = text.wholeMatch(of: /([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})/),
              let year = Int(match.1), let month = Int(match.2), let day = Int(match.3), let hour = Int(match.4), let minute = Int(match.5),
              (1...12).contains(month), (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else { return nil }
        return components
    }

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// The `index`-th time (0 the first), or nil when the schedule has ended by then.
    public func occurrence(_ index: Int) -> Date? {
        if let count, index >= count { return nil }
        if frequency == nil, index > 0 { return nil }
        var local = start
        switch frequency {
        case nil: break
        case .daily?: local = Self.adding(days: index * interval, to: start)
        case .weekly?: local = Self.adding(days: 7 * index * interval, to: start)
        case .monthly?: local = Self.adding(months: index * interval, to: start)
        }
        if let until, let day = Self.dayNumber(local), let last = Self.dayNumber(until), day > last { return nil }
        // A local time that does not exist (skipped by daylight saving) moves forward to the next that does.
        return calendar.nextDate(
            after: calendar.date(from: DateComponents(year: local.year, month: local.month, day: local.day))!.addingTimeInterval(-1),
            matching: DateComponents(hour: local.hour, minute: local.minute), matchingPolicy: .nextTime)
    }

    /// The first occurrence at or after `now`, from `index` on: its index and time.
    public func next(atOrAfter now: Date, from index: Int) -> (index: Int, at: Date)? {
        var index = index
        while let date = occurrence(index) {
            if date >= now { return (index, date) }
            index += 1
            if index > 100_000 { return nil }
        }
        return nil
    }

    /// Local date arithmetic on the calendar day, whatever the time zone does.
    private static func adding(days: Int, to components: DateComponents) -> DateComponents {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let day = utc.date(from: DateComponents(year: components.year, month: components.month, day: components.day))!
        let moved = utc.dateComponents([.year, .month, .day], from: utc.date(byAdding: .day, value: days, to: day)!)
        return DateComponents(year: moved.year, month: moved.month, day: moved.day, hour: components.hour, minute: components.minute)
    }

    private static func adding(months: Int, to components: DateComponents) -> DateComponents {
        let total = (components.year! * 12 + components.month! - 1) + months
        let year = total / 12, month = total % 12 + 1
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let first = utc.date(from: DateComponents(year: year, month: month, day: 1))!
        let length = utc.range(of: .day, in: .month, for: first)!.count
        return DateComponents(year: year, month: month, day: min(components.day!, length), hour: components.hour, minute: components.minute)
    }

    private static func dayNumber(_ components: DateComponents) -> Int? {
        guard let year = components.year, let month = components.month, let day = components.day else { return nil }
        return year * 10_000 + month * 100 + day
    }
}

public struct RecurrenceProblem: Error, Equatable {
    public let field: String
    public let message: String
}

/// Hours in which non-urgent pushes wait, in a time zone; `end` before `start` spans midnight.
public struct QuietWindow: Sendable, Equatable {
    /// Minutes after local midnight.
    public let start: Int
    public let end: Int
    public let timeZone: TimeZone

    public init(start: Int, end: Int, timeZone: TimeZone) {
        self.start = start
        self.end = end
        self.timeZone = timeZone
    }

    /// When a push made at `now` may go: `now` outside the window, else the window's end.
    public func release(_ now: Date) -> Date {
        guard start != end else { return now }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: now)
        let minute = parts.hour! * 60 + parts.minute!
        let inside = start < end ? (minute >= start && minute < end) : (minute >= start || minute < end)
        guard inside else { return now }
        return calendar.nextDate(after: now, matching: DateComponents(hour: end / 60, minute: end % 60, second: 0), matchingPolicy: .nextTime) ?? now
    }

    /// `HH:mm` as minutes after midnight.
    public static func minutes(_ text: String) -> Int? {
        guard let match = text.wholeMatch(of: /([01][0-9]|2[0-3]):([0-5][0-9])/), let hour = Int(match.1), let minute = Int(match.2) else { return nil }
        return hour * 60 + minute
    }

    public static func text(_ minutes: Int) -> String {
        let hour = minutes / 60, minute = minutes % 60
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }
}
