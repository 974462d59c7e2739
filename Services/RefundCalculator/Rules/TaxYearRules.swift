import RefundCalculatorContract
import Contracts
import Crypto
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
