import RefundCalculatorContract
import Contracts
import Crypto
import Foundation

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
