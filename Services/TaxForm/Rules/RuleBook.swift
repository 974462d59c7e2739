import Crypto
import Envelope
import Foundation
import TaxFormContract

/// Every tax year's rules, read from the bundled `Data/rules/<year>.json`.
public struct RuleBook: Sendable {
    public let years: [Int: TaxYearRules]
    /// The first 16 hex digits of a SHA-256 over the data files: any change to a figure or a source
    /// gives a new version.
    public let version: String

    /// The data shipped in the module's `Data` folder.
    public static func bundled() throws -> RuleBook { try load(from: Bundle.module.resourceURL!.appendingPathComponent("Data")) }

    /// Reads and checks every `rules/<year>.json` in `folder`.
    public static func load(from folder: URL) throws -> RuleBook {
        var hash = SHA256()
        var years: [Int: TaxYearRules] = [:]
        let files = try FileManager.default.contentsOfDirectory(at: folder.appendingPathComponent("rules"), includingPropertiesForKeys: nil)
        for file in files.sorted(by: { $0.lastPathComponent < $1.lastPathComponent }) where file.pathExtension == "json" {
            let data = try Data(contentsOf: file)
            hash.update(data: Data("\(file.lastPathComponent)\n\(data.count)\n".utf8))
            hash.update(data: data)
            let rules = try JSONDecoder().decode(TaxYearRules.self, from: data)
            try check(rules, file: file.lastPathComponent)
            years[rules.year] = rules
        }
        return RuleBook(years: years, version: hash.finalize().prefix(8).map { String(format: "%02x", $0) }.joined())
    }

    struct Inconsistent: Error, CustomStringConvertible {
        let description: String
    }

    /// The figures fit together: one rate more than upper ends, ends rising, the file named for its
    /// year, deadlines as `MM-DD` days and the holidays days of the filing year.
    static func check(_ rules: TaxYearRules, file: String) throws {
        guard file == "\(rules.year).json" else { throw Inconsistent(description: "\(file) holds the rules of \(rules.year)") }
        let deadlines = rules.deadlines
        for monthDay in [deadlines.wages, deadlines.withoutWages, deadlines.extended] where CalendarDay.date("\(rules.year + 1)-\(monthDay)") == nil {
            throw Inconsistent(description: "\(file): the deadline \(monthDay) is not a day of the filing year as MM-DD")
        }
        for holiday in deadlines.holidays where CalendarDay.date(holiday.date) == nil || !holiday.date.hasPrefix("\(rules.year + 1)-") {
            throw Inconsistent(description: "\(file): the holiday \(holiday.date) is not a date of the filing year \(rules.year + 1)")
        }
        for status in TaxForm.FilingStatus.allCases {
            let ends = rules.brackets.upperEnds(status)
            guard ends.count + 1 == rules.brackets.rates.count, zip(ends, ends.dropFirst()).allSatisfy({ $0 < $1 }) else {
                throw Inconsistent(description: "\(file): the \(status.rawValue) brackets do not rise or do not match the rates")
            }
        }
    }
}
