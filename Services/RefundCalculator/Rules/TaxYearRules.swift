import Foundation

/// One tax year's figures, as `Data/rules/<year>.json` holds them: whole euros, rates in basis
/// points (2000 = 20%), each section with its source. Adding a tax year is adding a file.
public struct TaxYearRules: Codable, Sendable, Equatable {
    public struct Rates: Codable, Sendable, Equatable {
        public var standard: Int
        public var higher: Int
        public var source: String
    }

    public struct CutOffs: Codable, Sendable, Equatable {
        public var single: Int
        public var singleChildCarer: Int
        public var marriedOneIncome: Int
        /// The most the band grows by for a second income (never more than that income).
        public var marriedSecondIncomeIncreaseMax: Int
        public var source: String
    }

    public struct Credits: Codable, Sendable, Equatable {
        public var personalSingle: Int
        public var personalMarried: Int
        public var widowedNoChild: Int
        public var employee: Int
        public var singleChildCarer: Int
        public var homeCarer: Int
        public var homeCarerIncomeLimit: Int
        public var age65Single: Int
        public var age65Married: Int
        public var rentSingle: Int
        public var source: String
    }

    public struct Reliefs: Codable, Sendable, Equatable {
        public var medicalRate: Int
        public var medicalSource: String
        public var tuitionRate: Int
        public var tuitionCapPerCourse: Int
        public var tuitionDisregardFullTime: Int
        public var tuitionDisregardPartTime: Int
        public var tuitionSource: String
        public var nursingHomeSource: String
        public var flatRateExpensesSource: String
    }

    public struct USC: Codable, Sendable, Equatable {
        public struct Band: Codable, Sendable, Equatable {
            /// The top of the band in euros; nil for the last.
            public var upTo: Int?
            public var rate: Int
        }

        public var exemptUpTo: Int
        public var bands: [Band]
        public var source: String
    }

    public var year: Int
    public var currency: String
    public var rates: Rates
    public var standardRateCutOff: CutOffs
    public var credits: Credits
    public var reliefs: Reliefs
    public var usc: USC
}

/// A profession's flat-rate employment expenses (`Data/flat-rate-expenses.json`).
public struct FlatRateExpenses: Codable, Sendable, Equatable {
    public struct Profession: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var euros: Int
    }

    public var source: String
    public var validFrom: Int
    public var professions: [Profession]
}

/// Every tax year's rules and the flat-rate expense list, read from the bundled data.
public struct RuleBook: Sendable {
    public let years: [Int: TaxYearRules]
    public let flatRateExpenses: FlatRateExpenses

    public init(years: [Int: TaxYearRules], flatRateExpenses: FlatRateExpenses) {
        self.years = years
        self.flatRateExpenses = flatRateExpenses
    }

    /// The data shipped in the module's `Data` folder.
    public static func bundled() throws -> RuleBook {
        try load(from: Bundle.module.resourceURL!.appendingPathComponent("Data"))
    }

    public static func load(from folder: URL) throws -> RuleBook {
        let decoder = JSONDecoder()
        var years: [Int: TaxYearRules] = [:]
        let files = try FileManager.default.contentsOfDirectory(at: folder.appendingPathComponent("rules"), includingPropertiesForKeys: nil)
        for file in files where file.pathExtension == "json" {
            let rules = try decoder.decode(TaxYearRules.self, from: Data(contentsOf: file))
            years[rules.year] = rules
        }
        let expenses = try decoder.decode(FlatRateExpenses.self, from: Data(contentsOf: folder.appendingPathComponent("flat-rate-expenses.json")))
        return RuleBook(years: years, flatRateExpenses: expenses)
    }

    /// The years an estimate may be for on `today`: the current year and the four before it
    /// (the refund window), where rules exist.
    public func window(on today: Date) -> ClosedRange<Int>? {
        let current = Calendar(identifier: .gregorian).component(.year, from: today)
        let known = years.keys.filter { (current - 4...current).contains($0) }
        guard let first = known.min(), let last = known.max() else { return nil }
        return first...last
    }
}
