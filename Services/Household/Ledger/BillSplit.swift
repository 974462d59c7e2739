import Contracts
import Envelope
import Foundation
import HouseholdContract

/// A bill's parts as asked for, turned into shares that add up to its amount exactly: `equal`,
/// `percentage` and `shares` by the kit's allocation rule (`Money.allocated(byWeights:)`), `exact`
/// as given once they add up. Pure: the handlers check the members belong.
enum BillSplit {
    /// Basis points in a whole: percentages add up to 100.00 %.
    static let wholeInBasisPoints: Int64 = 10_000

    /// The shares of `amount` by `method` among `parts` (member, value), in the parts' order;
    /// `invalid` naming the field when the parts do not make a split.
    static func shares(of amount: Money, _ method: Household.SplitMethod, _ parts: [(member: UUID, value: Int64?)]) throws(OperationError)
        -> [(member: UUID, amount: Money)]
    {
        var validation = Validation()
        validation.check(!parts.isEmpty, "data.parts", "must name at least one member")
        validation.check(Set(parts.map(\.member)).count == parts.count, "data.parts", "names a member twice")
        for (index, part) in parts.enumerated() {
            let field = "data.parts[\(index)].value"
            switch method {
            case .equal: validation.check(part.value == nil, field, "goes only with exact, percentage or shares")
            case .exact, .percentage, .shares:
                validation.check(
                    part.value.map { (0...Household.Bounds.priceMinorUnits).contains($0) } ?? false, field,
                    "is needed with \(method.rawValue), from 0 to \(Household.Bounds.priceMinorUnits)")
            }
        }
        try validation.finish()
        let values = parts.map { $0.value ?? 1 }
        let total = values.reduce(Int64(0)) { $0 &+ $1 }
        let amounts: [Money]
        switch method {
        case .equal:
            amounts = try split(amount, byWeights: values)
        case .exact:
            guard total == amount.minorUnits else {
                throw OperationError.invalid(field: "data.parts", "the exact parts add up to \(Money(minorUnits: total, currency: amount.currency)), not \(amount)")
            }
            amounts = values.map { Money(minorUnits: $0, currency: amount.currency) }
        case .percentage:
            guard total == wholeInBasisPoints else {
                throw OperationError.invalid(field: "data.parts", "the percentages add up to \(total) basis points, not 10000 (100.00 %)")
            }
            amounts = try split(amount, byWeights: values)
        case .shares:
            guard total > 0 else { throw OperationError.invalid(field: "data.parts", "at least one member must have a share") }
            amounts = try split(amount, byWeights: values)
        }
        return zip(parts, amounts).map { (member: $0.member, amount: $1) }
    }

    private static func split(_ amount: Money, byWeights weights: [Int64]) throws(OperationError) -> [Money] {
        do { return try amount.allocated(byWeights: weights) } catch { throw error.invalid(field: "data.parts") }
    }
}
