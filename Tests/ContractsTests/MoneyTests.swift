import Contracts
import Envelope
import Foundation
import Testing
import TestSupport

struct MoneyTests {
    let eur = Currency.eur

    func euros(_ minorUnits: Int64) -> Money { Money(minorUnits: minorUnits, currency: eur) }

    @Test func currenciesAndTheirExponentsComeFromTheList() throws {
        #expect(Currency(rawValue: "EUR")?.exponent == 2)
        #expect(Currency(rawValue: "JPY")?.exponent == 0)
        #expect(Currency(rawValue: "BHD")?.exponent == 3)
        #expect(Currency(rawValue: "eur") == nil)
        #expect(Currency(rawValue: "BGN") == nil, "withdrawn on 2026-01-01")
        #expect(Currency(rawValue: "XAU") == nil, "gold has no minor unit")
        #expect(Set(Currency.allCases.map(\.code)).count == Currency.allCases.count)
        #expect(Currency.allCases.allSatisfy { $0.code.wholeMatch(of: /[A-Z]{3}/) != nil && [0, 2, 3].contains($0.exponent) })
    }

    @Test func oneJSONShapeAndUnknownCurrenciesAreRefusedByField() throws {
        let json = try JSONEncoder.sorted.encode(Money(minorUnits: 1250, currency: eur))
        #expect(String(decoding: json, as: UTF8.self) == #"{"currency":"EUR","minorUnits":1250}"#)
        #expect(try JSONDecoder().decode(Money.self, from: json) == euros(1250))
        for bad in [#"{"currency":"XYZ","minorUnits":1}"#, #"{"currency":"eur","minorUnits":1}"#, #"{"currency":"EUR","minorUnits":1.5}"#] {
            #expect(throws: DecodingError.self, "\(bad)") { try JSONDecoder().decode(Money.self, from: Data(bad.utf8)) }
        }
        let schema = SchemaReflection.schema(of: Money.self)
        #expect(schema[property: "currency"]?.allowed?.contains("EUR") == true)
        #expect(schema[property: "minorUnits"]?.kind == .integer)
    }

    @Test func textIsExactForEveryExponent() {
        #expect(euros(1250).description == "12.50 EUR")
        #expect(euros(-5).description == "-0.05 EUR")
        #expect(Money(minorUnits: 1250, currency: Currency(rawValue: "JPY")!).description == "1250 JPY")
        #expect(Money(minorUnits: 1, currency: Currency(rawValue: "KWD")!).description == "0.001 KWD")
        #expect(euros(.min).description == "-92233720368547758.08 EUR")
    }

    @Test func arithmeticRefusesOverflowAndMixedCurrencies() throws {
        #expect(try euros(10).adding(euros(5)) == euros(15))
        #expect(try euros(10).subtracting(euros(15)) == euros(-5))
        #expect(throws: MoneyError.overflow) { try euros(.max).adding(euros(1)) }
        #expect(throws: MoneyError.overflow) { try euros(.min).subtracting(euros(1)) }
        #expect(throws: MoneyError.overflow) { try euros(.min).negated() }
        #expect(throws: MoneyError.overflow) { try euros(.max / 2 + 1).multiplied(by: 2) }
        #expect(throws: MoneyError.currencyMismatch(eur, .usd)) { try euros(1).adding(Money(minorUnits: 1, currency: .usd)) }
        #expect(try Money.sum([euros(1), euros(2), euros(3)], currency: eur) == euros(6))
        #expect(MoneyError.overflow.invalid(field: "amount").fields.first?.field == "amount")
    }

    @Test func allocationGivesTheRemainderToTheLargestFractionsThenTheEarlierParts() throws {
        #expect(try euros(1000).split(into: 3).map(\.minorUnits) == [334, 333, 333])
        #expect(try euros(-1000).split(into: 3).map(\.minorUnits) == [-334, -333, -333])
        // 100 by 1:1:1:7 is 10, 10, 10, 70 exactly; 5 by 1:2 is 1.67 and 3.33: the first part lost more.
        #expect(try euros(100).allocated(byWeights: [1, 1, 1, 7]).map(\.minorUnits) == [10, 10, 10, 70])
        #expect(try euros(5).allocated(byWeights: [1, 2]).map(\.minorUnits) == [2, 3])
        #expect(try euros(2).allocated(byWeights: [0, 1, 0, 1, 1]).map(\.minorUnits) == [0, 1, 0, 1, 0])
        #expect(try euros(.min).allocated(byWeights: [0, 1]).map(\.minorUnits) == [0, .min])
        #expect(throws: MoneyError.self) { try euros(1).allocated(byWeights: []) }
        #expect(throws: MoneyError.self) { try euros(1).allocated(byWeights: [0, 0]) }
        #expect(throws: MoneyError.self) { try euros(1).allocated(byWeights: [1, -1]) }
        #expect(throws: MoneyError.self) { try euros(1).allocated(byWeights: [.max, 1]) }
    }

    /// Random totals and weights (seeded; the seed is in every failure): the parts add up to the total,
    /// each is within one minor unit of its exact share, has the total's sign, and weight 0 gets 0.
    @Test(arguments: 0..<4) func allocationAlwaysAddsUp(round: Int) throws {
        let seed = UInt64(round) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(Date().timeIntervalSince1970)
        var generator = SplitMix64(seed: seed)
        for _ in 0..<500 {
            let total: Int64 = switch Int.random(in: 0..<4, using: &generator) {
            case 0: .random(in: -1_000...1_000, using: &generator)
            case 1: .random(in: .min ... .max, using: &generator)
            case 2: [Int64.min, .max, 0, 1, -1].randomElement(using: &generator)!
            default: .random(in: -100_000_00...100_000_00, using: &generator)
            }
            let largest: Int64 = Bool.random(using: &generator) ? 10 : .max / 64
            var weights = (0..<Int.random(in: 1...40, using: &generator)).map { _ in
                Int.random(in: 0..<5, using: &generator) == 0 ? 0 : Int64.random(in: 1...largest, using: &generator)
            }
            if weights.allSatisfy({ $0 == 0 }) { weights[0] = 1 }
            let parts = try euros(total).allocated(byWeights: weights).map(\.minorUnits)
            let context = "seed \(seed): \(total) by \(weights)"
            #expect(parts.count == weights.count, "\(context)")
            #expect(parts.reduce(Int128(0)) { $0 + Int128($1) } == Int128(total), "\(context)")
            let sum = Int128(weights.reduce(0, +))
            for (part, weight) in zip(parts, weights) {
                // |part × Σw − total × w| < Σw: the part is its exact share, rounded one way or the other.
                let error = Int128(part) * sum - Int128(total) * Int128(weight)
                #expect(error.magnitude < sum.magnitude, "\(context)")
                #expect(weight != 0 || part == 0, "\(context)")
                #expect(part == 0 || (part < 0) == (total < 0), "\(context)")
            }
        }
    }
}

extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}
