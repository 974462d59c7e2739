import RefundCalculatorContract
import Contracts
import Foundation

/// Help for every scenario field (`Data/help.json`), with `{{placeholders}}` filled from one tax
/// year's figures, so the text always states the figures the estimate uses.
public struct FieldHelpTexts: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var field: String
        public var label: String
        public var help: String
        /// The help for a year that lacks a figure `help` names (one of `figuresSomeYearsLack`).
        public var otherwise: String?
    }

    public var fields: [Entry]

    /// The help for `rules`' year: placeholders filled, and the choices of `status` and the
    /// professions attached. A year without a figure that only some years have gets the entry's
    /// `otherwise`; any other placeholder without a figure throws.
    public func render(for rules: TaxYearRules, professions: [FlatRateExpenses.Profession]) throws -> [RefundCalculator.FieldHelp] {
        let figures = Self.figures(rules)
        let professionOptions = professions.map { profession in
            RefundCalculator.Option(
                value: profession.id, label: profession.euros > 0 ? "\(profession.name) (\(EuroText.format(cents: Int64(profession.euros) * 100)))" : profession.name)
        }
        return try fields.map { entry in
            var help = try Self.fill(entry.help, figures, field: entry.field, year: rules.year)
            if help == nil, let otherwise = entry.otherwise { help = try Self.fill(otherwise, figures, field: entry.field, year: rules.year) }
            guard let help else { throw NoOtherwise(field: entry.field, year: rules.year) }
            let options: [RefundCalculator.Option]? = switch entry.field {
            case "status": RefundCalculator.Status.allCases.map { .init(value: $0.rawValue, label: Self.statusLabels[$0]!) }
            case "profession", "spouse.profession": professionOptions
            default: nil
            }
            return .init(field: entry.field, label: entry.label, help: help, options: options)
        }
    }

    /// `text` with its placeholders filled; nil when it names a figure this year lacks.
    static func fill(_ text: String, _ figures: [String: String], field: String, year: Int) throws -> String? {
        var unknown: String?, lacking = false
        let filled = text.replacing(/\{\{([A-Za-z0-9]+)\}\}/) { match in
            let name = String(match.1)
            if figures[name] == nil {
                if figuresSomeYearsLack.contains(name) { lacking = true } else { unknown = name }
            }
            return figures[name] ?? ""
        }
        if let unknown { throw UnknownPlaceholder(field: field, name: unknown, year: year) }
        return lacking ? nil : filled
    }

    /// Figures of a credit that only some years have.
    static let figuresSomeYearsLack: Set<String> = [
        "mortgageRate", "mortgageShare", "mortgageCap", "mortgageMaxCredit", "mortgageBalanceFrom", "mortgageBalanceTo",
    ]

    struct NoOtherwise: Error, CustomStringConvertible {
        var field: String, year: Int
        var description: String { "help for \(field) names a figure \(year) lacks, and has no otherwise for such a year" }
    }

    struct UnknownPlaceholder: Error, CustomStringConvertible {
        var field: String, name: String, year: Int
        var description: String { "help for \(field) uses {{\(name)}}, which \(year) has no figure for" }
    }

    static let statusLabels: [RefundCalculator.Status: String] = [
        .single: "Single",
        .marriedOneIncome: "Married or civil partners, jointly assessed, one income",
        .marriedTwoIncomes: "Married or civil partners, jointly assessed, two incomes",
        .widowed: "Widowed",
        .separated: "Separated or divorced",
    ]

    /// The figures help text may name, formatted as the user reads them.
    static func figures(_ rules: TaxYearRules) -> [String: String] {
        func euros(_ amount: Int) -> String { EuroText.format(cents: Int64(amount) * 100) }
        func percent(_ basisPoints: Int) -> String { EuroText.percent(basisPoints: basisPoints) }
        let credits = rules.credits, cut = rules.standardRateCutOff, reliefs = rules.reliefs
        var mortgage: [String: String] = [:]
        if let credit = rules.mortgageInterest {
            mortgage = [
                "mortgageRate": percent(credit.rate),
                "mortgageShare": "\(credit.countedPart) rise",
                "mortgageCap": euros(credit.countedCap), "mortgageMaxCredit": EuroText.format(cents: Estimator.rate(Estimator.cents(credit.countedCap), credit.rate)),
                "mortgageBalanceFrom": euros(credit.balanceFrom), "mortgageBalanceTo": euros(credit.balanceTo),
            ]
        }
        return mortgage.merging([
            "year": String(rules.year),
            "standardRate": percent(rules.rates.standard), "higherRate": percent(rules.rates.higher),
            "cutOffSingle": euros(cut.single), "cutOffSingleChildCarer": euros(cut.singleChildCarer),
            "cutOffMarriedOneIncome": euros(cut.marriedOneIncome), "cutOffIncreaseMax": euros(cut.marriedSecondIncomeIncreaseMax),
            "personalSingle": euros(credits.personalSingle), "personalMarried": euros(credits.personalMarried),
            "widowedNoChild": euros(credits.widowedNoChild), "employee": euros(credits.employee),
            "singleChildCarer": euros(credits.singleChildCarer), "homeCarer": euros(credits.homeCarer),
            "age65Single": euros(credits.age65Single), "age65Married": euros(credits.age65Married),
            "rentSingle": euros(credits.rentSingle), "rentCouple": euros(2 * credits.rentSingle),
            "medicalRate": percent(reliefs.medicalRate), "tuitionCap": euros(reliefs.tuitionCapPerCourse),
            "tuitionDisregardFullTime": euros(reliefs.tuitionDisregardFullTime), "tuitionDisregardPartTime": euros(reliefs.tuitionDisregardPartTime),
        ]) { $1 }
    }
}
