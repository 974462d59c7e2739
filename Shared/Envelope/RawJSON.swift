/// A JSON value kept as its bytes: a reply `data` read by a sender that does not know its type.
public struct RawJSON: Decodable, Sendable {
    public let bytes: [UInt8]

    public init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "RawJSON is read by EnvelopeCodec only"))
    }

    init(bytes: [UInt8]) { self.bytes = bytes }
}

extension RawJSON: Encodable {
    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath, debugDescription: "RawJSON is written by EnvelopeCodec only"))
    }
}
