import TaxFormContract

/// Form 1040 / 1040-NR line 16: the Tax Table below its limit, the Tax Computation Worksheet (the rate
/// schedule) from there up. Integer arithmetic throughout: amounts times basis points are in
/// millionths of a dollar until the one rounding at the end.
public enum IncomeTax {
    /// Line 16 for `taxableDollars` (line 15, whole dollars), in cents.
    public static func line16(taxableDollars: Int64, status: TaxForm.FilingStatus, rules: TaxYearRules) -> Int64 {
        guard taxableDollars > 0 else { return 0 }
        if taxableDollars < rules.taxTable.below {
            // The Tax Table: the schedule's tax on the midpoint of the income's row, in whole dollars.
            let row = tableRow(taxableDollars)
            let midpointCents = (row.lowerBound + row.upperBound) * 50
            return roundedHalfUp(scheduleMillionths(cents: midpointCents, status: status, rules: rules), to: 1_000_000) * 100
        }
        return roundedHalfUp(scheduleMillionths(cents: taxableDollars * 100, status: status, rules: rules), to: 10_000)
    }

    /// The Tax Table row `dollars` falls in: 0-5, 5-15, 15-25, then $25 rows up to 3,000 and $50 rows
    /// above (us-student-tax.md "Line 16 uses the Tax Table below 100,000").
    public static func tableRow(_ dollars: Int64) -> Range<Int64> {
        switch dollars {
        case ..<5: 0..<5
        case ..<15: 5..<15
        case ..<25: 15..<25
        case ..<3_000: (dollars - dollars % 25)..<(dollars - dollars % 25 + 25)
        default: (dollars - dollars % 50)..<(dollars - dollars % 50 + 50)
        }
    }

    /// The rate schedule's tax on `cents` of taxable income, in cents times basis points.
    static func scheduleMillionths(cents: Int64, status: TaxForm.FilingStatus, rules: TaxYearRules) -> Int64 {
        let ends = rules.brackets.upperEnds(status).map { $0 * 100 }
        var total: Int64 = 0, lower: Int64 = 0
        for (index, rate) in rules.brackets.rates.enumerated() {
            let upper = index < ends.count ? ends[index] : Int64.max
            guard cents > lower else { break }
            total += (min(cents, upper) - lower) * rate
            lower = upper
        }
        return total
    }

    /// `value / unit`, rounded half up (the IRS rounds 50 cents up).
    static func roundedHalfUp(_ value: Int64, to unit: Int64) -> Int64 { (value + unit / 2) / unit }
}

/// Whole dollars as the forms show them: 50 cents and up to the next dollar.
public func formDollars(_ cents: Int64) -> Int64 {
    cents >= 0 ? (cents + 50) / 100 : -((-cents + 50) / 100)
}
