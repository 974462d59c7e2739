import Envelope
import Foundation

/// Values kept in `jsonb` columns: written as JSON text (cast in SQL), read back as text.
enum JSONColumn {
    static func text(_ value: (some Encodable)?) -> String? {
        guard let value, let bytes = try? EnvelopeCodec().encode(value) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func value<T: Decodable>(_ type: T.Type, _ text: String?) -> T? {
        guard let text else { return nil }
        return try? EnvelopeCodec().decode(T.self, from: Array(text.utf8))
    }
}
