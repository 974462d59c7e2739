import Foundation

/// Encodes and decodes envelopes as JSON, enforcing the size limit and turning every decoding failure
/// into an `invalid` or `too_large` `OperationError` that names the offending field.
public struct EnvelopeCodec: Sendable {
    /// The default largest envelope: 8 MiB.
    public static let defaultMaxBytes = 8 << 20

    /// Envelopes larger than this are refused with `too_large`.
    public var maxBytes: Int

    public init(maxBytes: Int = EnvelopeCodec.defaultMaxBytes) {
        self.maxBytes = maxBytes
    }

    // JSONEncoder and JSONDecoder are Sendable and safe to share once configured.
    private static let encoder = makeEncoder([.withoutEscapingSlashes])
    // Slashes stay escaped in the canonical form: stored fingerprints were made that way.
    private static let canonicalEncoder = makeEncoder([.sortedKeys])

    /// An encoder writing dates in RFC 3339.
    private static func makeEncoder(_ formatting: JSONEncoder.OutputFormatting) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(from: date))
        }
        encoder.outputFormatting = formatting
        return encoder
    }

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = RFC3339.date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 date-time")
            }
            return date
        }
        return decoder
    }()

    /// Encodes any envelope or payload with Melon's JSON conventions (RFC 3339 dates).
    public func encode(_ value: some Encodable) throws(OperationError) -> [UInt8] {
        let bytes: Data
        do {
            bytes = try Self.encoder.encode(value)
        } catch {
            throw OperationError(.internal, "the message could not be encoded")
        }
        guard bytes.count <= maxBytes else {
            throw OperationError(.tooLarge, "the message is \(bytes.count) bytes; the limit is \(maxBytes)")
        }
        return [UInt8](bytes)
    }

    /// `value`'s JSON with sorted keys: the same value always gives the same bytes (plain encoding
    /// does not promise a key order), as a request's fingerprint for idempotency needs.
    public func canonical(_ value: some Encodable) throws(OperationError) -> [UInt8] {
        do {
            return [UInt8](try Self.canonicalEncoder.encode(value))
        } catch {
            throw OperationError(.internal, "the message could not be encoded")
        }
    }

    /// The JSON of an envelope's `data` (or any value), unlimited: the caller checks the whole message.
    func encodePayload(_ value: some Encodable) throws(OperationError) -> Data {
        do {
            return try Self.encoder.encode(value)
        } catch {
            throw OperationError(.internal, "the message could not be encoded")
        }
    }

    /// Decodes an envelope's `data` member; failures name the field under `data`.
    func decodePayload<T: Decodable>(_ type: T.Type, from bytes: ArraySlice<UInt8>) throws(OperationError) -> T {
        if T.self == RawJSON.self { return RawJSON(bytes: Array(bytes)) as! T }
        do {
            return try Self.decoder.decode(T.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw Self.describe(error, under: "data")
        } catch {
            throw OperationError.invalid(field: "data", "is not valid JSON")
        }
    }

    /// Decodes `T` from `bytes`, refusing oversized input and naming the field of any failure.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(OperationError) -> T {
        guard bytes.count <= maxBytes else {
            throw OperationError(.tooLarge, "the message is \(bytes.count) bytes; the limit is \(maxBytes)")
        }
        do {
            return try Self.decoder.decode(T.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw Self.describe(error)
        } catch {
            throw OperationError(.invalid, "the message is not valid JSON")
        }
    }

    /// Turns a `DecodingError` into an `invalid` error naming the JSON path at fault.
    static func describe(_ error: DecodingError, under prefix: String? = nil) -> OperationError {
        func path(_ codingPath: [any CodingKey]) -> String { Self.path(codingPath, under: prefix) }
        switch error {
        case .keyNotFound(let key, let context):
            return .invalid(field: path(context.codingPath + [key]), "is required")
        case .valueNotFound(_, let context):
            return .invalid(field: path(context.codingPath), "must not be null")
        case .typeMismatch(let type, let context):
            return .invalid(field: path(context.codingPath), "must be \(describe(type))")
        case .dataCorrupted(let context) where context.codingPath.isEmpty && prefix == nil:
            return OperationError(.invalid, "the message is not valid JSON")
        case .dataCorrupted(let context):
            return .invalid(field: path(context.codingPath), context.debugDescription)
        @unknown default:
            return OperationError(.invalid, "the message could not be read")
        }
    }

    /// `data.items[2].name` for a coding path (below `prefix` when given).
    static func path(_ codingPath: [any CodingKey], under prefix: String? = nil) -> String {
        var out = prefix ?? ""
        for key in codingPath {
            if let index = key.intValue {
                out += "[\(index)]"
            } else {
                out += out.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return out.isEmpty ? "$" : out
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type: "an integer"
        case is Double.Type, is Float.Type, is Decimal.Type: "a number"
        case is [Any].Type: "an array"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
