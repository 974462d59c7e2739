import Envelope
import Foundation
import TaxFormContract

/// One tax year's figures, from `Data/rules/<year>.json`: whole dollars and basis points, each section
/// with the source it was taken from.
public struct TaxYearRules: Decodable, Sendable {
    public let year: Int
    public let brackets: Brackets
    public let standardDeduction: ByStatus
    public let taxTable: TaxTableRule
    public let treaties: [Treaty]
    public let deadlines: Deadlines

    /// The rate schedule: `rates[i]` applies up to the status's `i`th upper end, the last rate above.
    public struct Brackets: Decodable, Sendable {
        public let rates: [Int64]
        let single: [Int64]
        let marriedJointly: [Int64]
        let marriedSeparately: [Int64]
        let headOfHousehold: [Int64]
        public let source: String

        /// Upper ends of the brackets for `status`, in whole dollars (a qualifying surviving spouse uses
        /// the joint ones).
        public func upperEnds(_ status: TaxForm.FilingStatus) -> [Int64] {
            switch status {
            case .single: single
            case .marriedJointly, .qualifyingSurvivingSpouse: marriedJointly
            case .marriedSeparately: marriedSeparately
            case .headOfHousehold: headOfHousehold
            }
        }
    }

    /// A whole-dollar amount per filing status.
    public struct ByStatus: Decodable, Sendable {
        let single: Int64
        let marriedJointly: Int64
        let marriedSeparately: Int64
        let headOfHousehold: Int64
        public let source: String

        public subscript(status: TaxForm.FilingStatus) -> Int64 {
            switch status {
            case .single: single
            case .marriedJointly, .qualifyingSurvivingSpouse: marriedJointly
            case .marriedSeparately: marriedSeparately
            case .headOfHousehold: headOfHousehold
            }
        }
    }

    public struct TaxTableRule: Decodable, Sendable {
        /// Taxable income (whole dollars) below which line 16 comes from the Tax Table.
        public let below: Int64
        public let source: String
    }

    /// A student treaty benefit (IRS Pub. 901, "Students and Apprentices"; Tax Treaty Table 2, income
    /// code 20).
    public struct Treaty: Decodable, Sendable {
        public enum Benefit: String, Decodable, Sendable {
            /// Wages exempt up to `limit` dollars a year.
            case wagesExempt
            /// The standard deduction on the 1040-NR.
            case standardDeduction
        }

        /// ISO 3166-1 alpha-2.
        public let country: String
        public let article: String
        public let benefit: Benefit
        public let limit: Int64?
        /// The calendar years the benefit covers, counting the year of first arrival; nil: as long as
        /// the studies need.
        public let years: Int?
        /// The provision that keeps the benefit for a resident alien, an exception to the saving clause
        /// (Form 1040 with Form 8833); nil: nonresidents only.
        public let residentAliens: String?
        /// What a student must know beyond the figures (shown with the return).
        public let note: String?
        public let source: String

        /// The benefit in words, for the country suggestions.
        public var described: String {
            switch benefit {
            case .wagesExempt:
                "Wages up to $\(limit.map(Self.grouped) ?? "?") a year are exempt (Form 1040-NR line 1k)"
                    + (years.map { ", for \($0) years from arrival" } ?? "") + (residentAliens == nil ? "" : ", also once you are a resident alien (Form 8833)")
            case .standardDeduction: "The standard deduction on Form 1040-NR"
            }
        }

        /// Whether the benefit covers `taxYear` for a student who first arrived in `arrivalYear`.
        public func covers(_ taxYear: Int, arrivalYear: Int) -> Bool {
            guard let years else { return true }
            return taxYear >= arrivalYear && taxYear - arrivalYear < years
        }

        /// 5000 as `5,000`.
        static func grouped(_ dollars: Int64) -> String {
            var digits = String(dollars), out = ""
            while digits.count > 3 { out = "," + digits.suffix(3) + out; digits.removeLast(3) }
            return digits + out
        }
    }

    public struct Deadlines: Decodable, Sendable {
        /// `MM-DD` in the filing year (the tax year's next).
        public let wages: String
        public let withoutWages: String
        /// With Form 4868.
        public let extended: String
        public let source: String
        public let holidays: [Holiday]
        public let holidaysSource: String

        public struct Holiday: Decodable, Sendable {
            /// `YYYY-MM-DD`.
            public let date: String
            public let name: String
        }
    }

    /// The treaty of `country`, if the rules have one.
    public func treaty(_ country: String) -> Treaty? { treaties.first { $0.country == country } }
}

extension TaxYearRules.Deadlines {
    public enum Kind: Sendable {
        case wages, withoutWages, extended
    }

    /// The day a return of `kind` for `taxYear` is due (`YYYY-MM-DD`): the day in the filing year, moved
    /// to the next business day over weekends and Washington DC holidays.
    public func due(_ kind: Kind, taxYear: Int) -> String {
        let monthDay = switch kind {
        case .wages: wages
        case .withoutWages: withoutWages
        case .extended: extended
        }
        let closed = Set(holidays.map(\.date))
        var day = "\(taxYear + 1)-\(monthDay)"
        while CalendarDay.calendar.isDateInWeekend(CalendarDay.date(day)!) || closed.contains(day) { day = CalendarDay.adding(1, to: day) }
        return day
    }
}
