/// Reads a few top-level string members of a JSON object without decoding the rest.
///
/// The broker needs a request's `id`, `type` and `expirytime`, and the client a reply's
/// `correlationid`, for every message; a full decode there would cost more than the routing itself.
/// The scan skips nested values by bracket depth (respecting strings and escapes) and stops as soon as
/// every wanted key has been seen. It validates only what it walks: full validation is the job of the
/// decoder at the receiving handler.
public enum JSONPeek {
    /// The values of the string members named in `keys`, in the order of `keys` (nil where absent or
    /// not a string), or nil when `json` is not an object.
    public static func strings(_ keys: [StaticString], in json: [UInt8]) -> [String?]? {
        let wanted = keys.map { key in
            key.withUTF8Buffer { Array($0) }
        }
        var found = [String?](repeating: nil, count: keys.count)
        var remaining = keys.count
        var scanner = Scanner(bytes: json)
        guard scanner.skipWhitespace(), scanner.consume(UInt8(ascii: "{")) else { return nil }
        guard scanner.skipWhitespace() else { return nil }
        if scanner.consume(UInt8(ascii: "}")) { return found }
        while remaining > 0 {
            guard scanner.skipWhitespace(), let keyRange = scanner.scanStringRange(),
                scanner.skipWhitespace(), scanner.consume(UInt8(ascii: ":")), scanner.skipWhitespace()
            else { return nil }
            let slot = wanted.firstIndex { json[keyRange].elementsEqual($0) }
            if let slot, scanner.peek == UInt8(ascii: "\"") {
                guard let valueRange = scanner.scanStringRange() else { return nil }
                if found[slot] == nil { remaining -= 1 }
                found[slot] = unescape(json[valueRange])
            } else {
                guard scanner.skipValue() else { return nil }
            }
            guard scanner.skipWhitespace() else { return nil }
            if scanner.consume(UInt8(ascii: ",")) { continue }
            guard scanner.consume(UInt8(ascii: "}")) else { return nil }
            break
        }
        return found
    }

    /// Decodes JSON string escapes; returns nil for an invalid escape.
    static func unescape(_ raw: ArraySlice<UInt8>) -> String? {
        guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw, as: UTF8.self) }
        var out = [UInt8]()
        var index = raw.startIndex
        var pendingHighSurrogate: UInt32?
        while index < raw.endIndex {
            let byte = raw[index]
            index += 1
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                continue
            }
            guard index < raw.endIndex else { return nil }
            let escape = raw[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard index + 4 <= raw.endIndex, let unit = UInt32(String(decoding: raw[index..<index + 4], as: UTF8.self), radix: 16)
                else { return nil }
                index += 4
                var scalar: Unicode.Scalar?
                if (0xD800...0xDBFF).contains(unit) {
                    pendingHighSurrogate = unit
                    continue
                } else if (0xDC00...0xDFFF).contains(unit), let high = pendingHighSurrogate {
                    scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00))
                } else {
                    scalar = Unicode.Scalar(unit)
                }
                pendingHighSurrogate = nil
                guard let scalar else { return nil }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                return nil
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A cursor over JSON bytes used by `JSONPeek`.
private struct Scanner {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Skips blanks; false at the end of input.
    mutating func skipWhitespace() -> Bool {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return true
            }
        }
        return false
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    /// Scans a string at the cursor and returns the range of its raw (still escaped) contents.
    mutating func scanStringRange() -> Range<Int>? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return start..<(index - 1)
            case UInt8(ascii: "\\"):
                index += 2
            case 0x00..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    /// Skips any value: a string, or a run of scalars and brackets until depth returns to zero.
    mutating func skipValue() -> Bool {
        var depth = 0
        while let byte = peek {
            switch byte {
            case UInt8(ascii: "\""):
                guard scanStringRange() != nil else { return false }
                if depth == 0 { return true }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return true }
                depth -= 1
                index += 1
                if depth == 0 { return true }
            case UInt8(ascii: ","):
                if depth == 0 { return true }
                index += 1
            default:
                index += 1
            }
        }
        return false
    }
}
