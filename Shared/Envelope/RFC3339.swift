import Foundation

/// RFC 3339 timestamps for envelope times and deadlines, without a date formatter on the hot path.
///
/// Writes UTC with milliseconds (`2026-11-21T14:29:29.123Z`); reads any RFC 3339 date-time, with or
/// without a fraction, with `Z` or a numeric offset.
public enum RFC3339 {
    /// Formats `date` in UTC with millisecond precision.
    public static func string(from date: Date) -> String {
        // Nearest, not down: a Date made from whole milliseconds is often a hair below them in binary.
        let totalMilliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var days = totalMilliseconds / 86_400_000
        var dayMilliseconds = totalMilliseconds % 86_400_000
        if dayMilliseconds < 0 {
            dayMilliseconds += 86_400_000
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        let seconds = dayMilliseconds / 1000
        var out = [UInt8]()
        out.reserveCapacity(24)
        append(year, width: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        append(month, width: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        append(day, width: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        append(seconds / 3600, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        append(seconds / 60 % 60, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        append(seconds % 60, width: 2, to: &out)
        out.append(UInt8(ascii: "."))
        append(dayMilliseconds % 1000, width: 3, to: &out)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses an RFC 3339 date-time, or returns nil when `text` is not one.
    public static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(Array($0)) }
    }

    /// A `full-date` (`YYYY-MM-DD`, a day that exists) as numbers, or nil. Without a regex: a regex
    /// literal in a function is parsed and compiled again on every call.
    public static func fullDate(from text: String) -> (year: Int, month: Int, day: Int)? {
        var text = text
        return text.withUTF8 { bytes -> (year: Int, month: Int, day: Int)? in
            let b = Array(bytes)
            guard b.count == 10, let year = number(b, 0, 4), b[4] == UInt8(ascii: "-"), let month = number(b, 5, 2),
                  b[7] == UInt8(ascii: "-"), let day = number(b, 8, 2),
                  (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
            else { return nil }
            return (Int(year), Int(month), Int(day))
        }
    }

    private static func parse(_ b: [UInt8]) -> Date? {
        guard b.count >= 20,
            let year = number(b, 0, 4), b[4] == UInt8(ascii: "-"),
            let month = number(b, 5, 2), b[7] == UInt8(ascii: "-"),
            let day = number(b, 8, 2), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t"),
            let hour = number(b, 11, 2), b[13] == UInt8(ascii: ":"),
            let minute = number(b, 14, 2), b[16] == UInt8(ascii: ":"),
            let second = number(b, 17, 2),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < b.count, b[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < b.count, let digit = digit(b[index]) {
                fraction += Double(digit) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < b.count else { return nil }
        var offsetSeconds: Int64 = 0
        switch b[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard b.count == index + 6, let hours = number(b, index + 1, 2), b[index + 3] == UInt8(ascii: ":"),
                let minutes = number(b, index + 4, 2), hours < 24, minutes < 60
            else { return nil }
            offsetSeconds = (hours * 3600 + minutes * 60) * (b[index] == UInt8(ascii: "+") ? 1 : -1)
            index += 6
        default:
            return nil
        }
        guard index == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    // MARK: Calendar arithmetic (Howard Hinnant's days-from-civil algorithms, proleptic Gregorian)

    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func digit(_ byte: UInt8) -> Int64? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int64(byte - UInt8(ascii: "0")) : nil
    }

    private static func number(_ b: [UInt8], _ start: Int, _ width: Int) -> Int64? {
        var value: Int64 = 0
        for index in start..<start + width {
            guard let digit = digit(b[index]) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    private static func append(_ value: Int64, width: Int, to out: inout [UInt8]) {
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: width)
        var rest = value
        for index in stride(from: width - 1, through: 0, by: -1) {
            digits[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        out.append(contentsOf: digits)
    }
}
