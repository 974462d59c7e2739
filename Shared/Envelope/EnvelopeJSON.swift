import Foundation

/// Writes a JSON object member by member, for envelopes whose attributes are plain strings.
struct JSONObjectWriter {
    private(set) var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var first = true

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// `"key":"value"` (nothing when `value` is nil).
    mutating func member(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        name(key)
        Self.appendString(value, to: &bytes)
    }

    /// `"key":<raw JSON>`.
    mutating func member(_ key: StaticString, json: some Sequence<UInt8>) {
        name(key)
        bytes.append(contentsOf: json)
    }

    /// `"key":<raw JSON>` for a key known only at run time.
    mutating func member(key: String, json: some Sequence<UInt8>) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        Self.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(contentsOf: json)
    }

    mutating func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private mutating func name(_ key: StaticString) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    /// A JSON string literal for `text`: quotes, backslashes and control characters escaped.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// The top-level members of an envelope, read by name, with failures as `invalid` naming the member.
struct JSONObjectReader {
    let bytes: [UInt8]
    private var members: [String: JSONScanner.Member] = [:]

    /// Fails with `invalid` when `bytes` is not one JSON object or names a member twice.
    init(_ bytes: [UInt8]) throws(OperationError) {
        guard let scanned = JSONScanner.members(of: bytes) else {
            throw OperationError(.invalid, "the message is not valid JSON")
        }
        self.bytes = bytes
        for member in scanned {
            guard let key = JSONPeek.unescape(bytes[member.key]) else { throw OperationError(.invalid, "the message is not valid JSON") }
            guard members.updateValue(member, forKey: key) == nil else {
                throw OperationError.invalid(field: key, "appears more than once")
            }
        }
    }

    private func isNull(_ member: JSONScanner.Member) -> Bool {
        member.value.count == 4 && bytes[member.value].elementsEqual("null".utf8)
    }

    /// A string member; nil when absent or null and not `required`.
    func string(_ key: String, required: Bool = false) throws(OperationError) -> String? {
        guard let member = members[key], !isNull(member) else {
            if required { throw OperationError.invalid(field: key, members[key] == nil ? "is required" : "must not be null") }
            return nil
        }
        guard member.isString, let value = JSONPeek.unescape(bytes[(member.value.lowerBound + 1)..<(member.value.upperBound - 1)]) else {
            throw OperationError.invalid(field: key, "must be a string")
        }
        return value
    }

    /// An RFC 3339 date-time member.
    func date(_ key: String, required: Bool = false) throws(OperationError) -> Date? {
        guard let text = try string(key, required: required) else { return nil }
        guard let date = RFC3339.date(from: text) else { throw OperationError.invalid(field: key, "not an RFC 3339 date-time") }
        return date
    }

    /// The raw JSON of a member; `invalid` naming it when absent.
    func raw(_ key: String) throws(OperationError) -> ArraySlice<UInt8> {
        guard let member = members[key] else { throw OperationError.invalid(field: key, "is required") }
        return bytes[member.value]
    }
}
