import RefundCalculatorContract
import Contracts
import Crypto
import Foundation

/// Every tax year's rules, the flat-rate expense list and the help text, read from the bundled data.
public struct RuleBook: Sendable {
    public let years: [Int: TaxYearRules]
    public let flatRateExpenses: FlatRateExpenses
    public let help: FieldHelpTexts
    /// `help` rendered for each year, with the professions attached, as clients get it.
    public let helpByYear: [Int: [RefundCalculator.FieldHelp]]
    /// The first 16 hex digits of a SHA-256 over every data file: any change to a figure, a source
    /// or a help text gives a new version.
    public let version: String

    /// Throws when the help names a figure one of the years lacks.
    public init(years: [Int: TaxYearRules], flatRateExpenses: FlatRateExpenses, help: FieldHelpTexts, version: String) throws {
        self.years = years
        self.flatRateExpenses = flatRateExpenses
        self.help = help
        self.version = version
        helpByYear = try years.mapValues { try help.render(for: $0, professions: flatRateExpenses.professions) }
    }

    /// The data shipped in the module's `Data` folder.
    public static func bundled() throws -> RuleBook {
        try load(from: bundledData)
    }

    /// The folder the shipped data is in.
    public static var bundledData: URL { Bundle.module.resourceURL!.appendingPathComponent("Data") }

    /// Reads `rules/<year>.json`, `flat-rate-expenses.json` and `help.json` from `folder`, and checks
    /// that the help renders for every year.
    public static func load(from folder: URL) throws -> RuleBook {
        let decoder = JSONDecoder()
        var hash = SHA256()
        func read(_ file: URL) throws -> Data {
            let data = try Data(contentsOf: file)
            hash.update(data: Data("\(file.lastPathComponent)\n\(data.count)\n".utf8))
            hash.update(data: data)
            return data
        }
        var years: [Int: TaxYearRules] = [:]
        let files = try FileManager.default.contentsOfDirectory(at: folder.appendingPathComponent("rules"), includingPropertiesForKeys: nil)
        for file in files.sorted(by: { $0.lastPathComponent < $1.lastPathComponent }) where file.pathExtension == "json" {
            let rules = try decoder.decode(TaxYearRules.self, from: read(file))
            years[rules.year] = rules
        }
        let expenses = try decoder.decode(FlatRateExpenses.self, from: read(folder.appendingPathComponent("flat-rate-expenses.json")))
        let help = try decoder.decode(FieldHelpTexts.self, from: read(folder.appendingPathComponent("help.json")))
        let version = hash.finalize().prefix(8).map { String(format: "%02x", $0) }.joined()
        return try RuleBook(years: years, flatRateExpenses: expenses, help: help, version: version)
    }

    /// Irish time decides which tax year a moment falls in.
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Dublin") ?? TimeZone(secondsFromGMT: 0)!
        return calendar
    }()

    /// The tax year (a calendar year in Ireland) `date` falls in.
    public static func taxYear(of date: Date) -> Int { calendar.component(.year, from: date) }

    /// The years an estimate may be for on `today`: the current year and the four before it
    /// (the refund window), where rules exist.
    public func window(on today: Date) -> ClosedRange<Int>? {
        let current = Self.taxYear(of: today)
        let known = years.keys.filter { (current - 4...current).contains($0) }
        guard let first = known.min(), let last = known.max() else { return nil }
        return first...last
    }
}
