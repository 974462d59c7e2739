/// An ISO 4217 currency in use: its three-letter code (`EUR`) and its exponent, the digits of its
/// minor unit (2 for EUR and USD, 0 for JPY, 3 for BHD), both from `ISO4217.listOne`. In JSON it is
/// the code; a code the list does not hold (or a lowercase one) is refused naming the field.
public struct Currency: Hashable, Sendable, Codable, SchemaEnumeration, CustomStringConvertible {
    /// The alphabetic code, `EUR`.
    public let code: String
    /// Digits after the decimal point: one major unit is 10^exponent minor units.
    public let exponent: Int
    /// The ISO name, `Euro`.
    public let name: String

    public init?(rawValue: String) {
        guard let currency = Self.byCode[rawValue] else { return nil }
        self = currency
    }

    private init(code: String, exponent: Int, name: String) {
        self.code = code
        self.exponent = exponent
        self.name = name
    }

    public var rawValue: String { code }
    public var description: String { code }

    /// Minor units in one major unit: 100 for EUR, 1 for JPY.
    public var minorUnitsPerMajor: Int64 {
        (0..<exponent).reduce(1) { value, _ in value * 10 }
    }

    /// Every currency of the list, by code.
    public static let allCases: [Currency] = ISO4217.listOne.split(separator: "\n").map { line in
        let parts = line.trimmingPrefix(while: \.isWhitespace).split(separator: " ", maxSplits: 3)
        return Currency(code: String(parts[0]), exponent: Int(parts[2])!, name: String(parts[3]))
    }

    private static let byCode = Dictionary(uniqueKeysWithValues: allCases.map { ($0.code, $0) })

    public static let eur = Currency(rawValue: "EUR")!
    public static let usd = Currency(rawValue: "USD")!
}
