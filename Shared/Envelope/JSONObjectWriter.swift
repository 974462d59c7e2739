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
