import Foundation
import TaxFormContract

extension TaxForm.Answer {
    /// `value` as an answer (a W-2 becomes an object).
    init(_ value: some Encodable) throws {
        self = try JSONDecoder().decode(Self.self, from: JSONEncoder().encode(value))
    }

    /// The answer read as a `type` (an object as a W-2); the decoding error names the member.
    func decoded<T: Decodable>(as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(self))
    }
}
