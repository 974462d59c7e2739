import Envelope

/// An amount of money: a whole number of the currency's minor units (cents for EUR, yen for JPY)
/// and its currency. Never a floating-point number. Every contract that carries money uses this
/// one shape: `{"minorUnits": 1250, "currency": "EUR"}` is €12.50.
///
/// Arithmetic is checked: adding two currencies or overflowing `Int64` throws `MoneyError`
/// instead of trapping or wrapping.
public struct Money: Hashable, Sendable, Codable, FieldRules, CustomStringConvertible {
    /// The amount in the currency's minor unit; negative for a refund or a debt.
    public var minorUnits: Int64
    public var currency: Currency

    public init(minorUnits: Int64, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    public static func zero(_ currency: Currency) -> Money { Money(minorUnits: 0, currency: currency) }

    public static let fieldRules: [String: FieldRule] = [
        "minorUnits": .described("the amount as a whole number of the currency's minor unit: 1250 with EUR is 12.50 euro, 1250 with JPY is 1,250 yen"),
        "currency": .described("ISO 4217 code, uppercase"),
    ]

    public var isZero: Bool { minorUnits == 0 }
    public var isNegative: Bool { minorUnits < 0 }

    public func adding(_ other: Money) throws(MoneyError) -> Money {
        try sameCurrency(other)
        let (sum, overflow) = minorUnits.addingReportingOverflow(other.minorUnits)
        guard !overflow else { throw .overflow }
        return Money(minorUnits: sum, currency: currency)
    }

    public func subtracting(_ other: Money) throws(MoneyError) -> Money {
        try sameCurrency(other)
        let (difference, overflow) = minorUnits.subtractingReportingOverflow(other.minorUnits)
        guard !overflow else { throw .overflow }
        return Money(minorUnits: difference, currency: currency)
    }

    public func multiplied(by factor: Int64) throws(MoneyError) -> Money {
        let (product, overflow) = minorUnits.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw .overflow }
        return Money(minorUnits: product, currency: currency)
    }

    public func negated() throws(MoneyError) -> Money {
        try Money.zero(currency).subtracting(self)
    }

    /// The total of `amounts`, all in `currency` (zero for none).
    public static func sum(_ amounts: some Sequence<Money>, currency: Currency) throws(MoneyError) -> Money {
        var total = Money.zero(currency)
        for amount in amounts { total = try total.adding(amount) }
        return total
    }

    /// The amount with its currency's decimal point and code, for people: `12.50 EUR`, `-0.05 EUR`,
    /// `1250 JPY`. Made from the integer, so it is exact.
    public var description: String {
        let magnitude = minorUnits.magnitude
        let sign = minorUnits < 0 ? "-" : ""
        guard currency.exponent > 0 else { return "\(sign)\(magnitude) \(currency.code)" }
        let unit = UInt64(currency.minorUnitsPerMajor)
        let fraction = String(magnitude % unit)
        let padded = String(repeating: "0", count: currency.exponent - fraction.count) + fraction
        return "\(sign)\(magnitude / unit).\(padded) \(currency.code)"
    }

    private func sameCurrency(_ other: Money) throws(MoneyError) {
        guard other.currency == currency else { throw .currencyMismatch(currency, other.currency) }
    }
}

/// Why an operation on money has no answer.
public enum MoneyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Two amounts in different currencies met.
    case currencyMismatch(Currency, Currency)
    /// The result does not fit in `Int64` minor units.
    case overflow
    /// Weights to allocate by that are not usable (`reason` says why).
    case invalidWeights(String)

    public var description: String {
        switch self {
        case .currencyMismatch(let first, let second): "amounts in \(first) and \(second) cannot be combined"
        case .overflow: "the amount is too large"
        case .invalidWeights(let reason): reason
        }
    }

    /// The error a caller gets, naming the field whose amount caused it.
    public func invalid(field: String) -> OperationError {
        OperationError.invalid(field: field, description)
    }
}
