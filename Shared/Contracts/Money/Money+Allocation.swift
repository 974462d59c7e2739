extension Money {
    /// The amount split into parts in proportion to `weights`, in whole minor units, so that the parts
    /// always add up to the amount exactly (a bill of 10.00 split three ways is 3.34, 3.33, 3.33).
    ///
    /// The rule for the remainder (largest remainder): each part first gets its exact share rounded
    /// towards zero; the minor units left over (fewer than the number of parts) go one each to the
    /// parts whose share lost the largest fraction, and among equal fractions to the earlier part.
    /// A part of weight 0 gets 0; a negative amount splits as its opposite, negated. The same amount
    /// and weights always give the same parts.
    ///
    /// Weights are non-negative, at least one is positive, and their sum fits in `Int64`.
    public func allocated(byWeights weights: [Int64]) throws(MoneyError) -> [Money] {
        guard !weights.isEmpty else { throw .invalidWeights("there must be at least one part") }
        guard weights.allSatisfy({ $0 >= 0 }) else { throw .invalidWeights("weights must not be negative") }
        var total: Int64 = 0
        for weight in weights {
            let (sum, overflow) = total.addingReportingOverflow(weight)
            guard !overflow else { throw .invalidWeights("the weights add up to more than \(Int64.max)") }
            total = sum
        }
        guard total > 0 else { throw .invalidWeights("at least one weight must be above 0") }

        let magnitude = minorUnits.magnitude, divisor = UInt64(total)
        // Each share is magnitude × weight / total, computed in 128 bits: it never overflows, and the
        // quotient fits because weight ≤ total.
        let shares = weights.map { weight in
            let product = magnitude.multipliedFullWidth(by: UInt64(weight))
            return divisor.dividingFullWidth(product)
        }
        var parts = shares.map(\.quotient)
        var left = magnitude - parts.reduce(0, +)
        // The parts that lost the largest fraction first; the earlier first among equals.
        let order = parts.indices.sorted { shares[$0].remainder != shares[$1].remainder ? shares[$0].remainder > shares[$1].remainder : $0 < $1 }
        for index in order where left > 0 {
            parts[index] += 1
            left -= 1
        }
        // Each part is at most the magnitude, which fits in Int64 but for Int64.min's.
        let negative = minorUnits < 0
        return parts.map { part in
            Money(minorUnits: negative ? Int64(truncatingIfNeeded: 0 &- part) : Int64(part), currency: currency)
        }
    }

    /// The amount split into `count` parts as equal as whole minor units allow, the larger first.
    public func split(into count: Int) throws(MoneyError) -> [Money] {
        guard count > 0 else { throw .invalidWeights("there must be at least one part") }
        return try allocated(byWeights: Array(repeating: 1, count: count))
    }
}
