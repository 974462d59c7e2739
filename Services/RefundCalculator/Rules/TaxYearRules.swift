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

    /// The Mortgage Interest Tax Credit: a share of the rise in interest over 2022, counted up to a
    /// cap, at a rate, for a balance on 31 December 2022 within a range; one credit per home.
    public struct MortgageInterest: Codable, Sendable, Equatable {
        /// Basis points of the counted amount given as credit.
        public var rate: Int
        /// Basis points of the rise over 2022 that count (10000 = all of it, 5000 = half).
        public var increaseShare: Int
        /// The most of the rise that counts, in euros.
        public var countedCap: Int
        /// The balance on 31 December 2022 must be from `balanceFrom` to `balanceTo` euros, both included.
        public var balanceFrom: Int
        public var balanceTo: Int
        public var source: String

        /// How much of the rise counts, in words before "rise": "the", "half the", "25% of the".
        public var countedPart: String {
            switch increaseShare {
            case 10_000: "the"
            case 5_000: "half the"
            default: "\(EuroText.percent(basisPoints: increaseShare)) of the"
            }
        }
    }

    /// How taxable social welfare is treated: Jobseeker's Benefit is income for income tax (and for
    /// the employee credit), not for USC.
    public struct SocialWelfare: Codable, Sendable, Equatable {
        public var source: String
    }

    public var year: Int
    public var currency: String
    public var rates: Rates
    public var standardRateCutOff: CutOffs
    public var credits: Credits
    public var reliefs: Reliefs
    public var usc: USC
    public var socialWelfare: SocialWelfare
    /// Nil for a year without the credit.
    public var mortgageInterest: MortgageInterest?
}
