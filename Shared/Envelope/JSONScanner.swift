/// A strict JSON scanner over UTF-8 bytes: finds the members of a top-level object and validates
/// everything it walks past (strings with their escapes, numbers, literals, nesting).
///
/// Envelopes are read with it: the attributes are short strings taken straight from the bytes, and
/// only the `data` member's bytes go to JSONDecoder.
struct JSONScanner {
    /// A member of the top-level object: where its key's contents and its value lie in the input.
    struct Member {
        /// The key's raw contents (between the quotes, still escaped).
        let key: Range<Int>
        /// The whole value, quotes included for a string.
        let value: Range<Int>
        var isString: Bool
    }

    private let bytes: [UInt8]
    private var index = 0
    private static let maxDepth = 512

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The members of the top-level object, in order; nil when the input is not exactly one valid
    /// JSON object (surrounding whitespace allowed).
    static func members(of bytes: [UInt8]) -> [Member]? {
        var scanner = JSONScanner(bytes)
        return scanner.objectMembers()
    }

    /// Like `members(of:)`, but on failure tells where the scan stopped (a byte offset) and whether
    /// the input was valid JSON that is not an object.
    static func membersOrFailure(of bytes: [UInt8]) -> Result<[Member], JSONSyntaxError> {
        var scanner = JSONScanner(bytes)
        if let members = scanner.objectMembers() { return .success(members) }
        let failedAt = scanner.index
        var whole = JSONScanner(bytes)
        whole.skipWhitespace()
        let isOtherValue = whole.value(depth: 1) && { whole.skipWhitespace(); return whole.index == bytes.count }()
        return .failure(JSONSyntaxError(bytes: bytes, offset: failedAt, isValidNonObject: isOtherValue))
    }

    private mutating func objectMembers() -> [Member]? {
        skipWhitespace()
        guard consume(UInt8(ascii: "{")) else { return nil }
        var members: [Member] = []
        skipWhitespace()
        if !consume(UInt8(ascii: "}")) {
            repeat {
                skipWhitespace()
                guard let key = string() else { return nil }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                let start = index
                let isString = peek == UInt8(ascii: "\"")
                guard value(depth: 1) else { return nil }
                members.append(Member(key: (key.lowerBound)..<(key.upperBound), value: start..<index, isString: isString))
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "}")) else { return nil }
        }
        skipWhitespace()
        return index == bytes.count ? members : nil
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    /// A string at the cursor; returns the range of its contents.
    private mutating func string() -> Range<Int>? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while let byte = peek {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return start..<(index - 1)
            case UInt8(ascii: "\\"):
                index += 1
                guard let escape = peek else { return nil }
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 1
                case UInt8(ascii: "u"):
                    guard index + 4 < bytes.count, bytes[(index + 1)...(index + 4)].allSatisfy(\.isHexDigit) else { return nil }
                    index += 5
                default:
                    return nil
                }
            case 0x00..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    private mutating func value(depth: Int) -> Bool {
        guard depth <= Self.maxDepth, let byte = peek else { return false }
        switch byte {
        case UInt8(ascii: "\""):
            return string() != nil
        case UInt8(ascii: "{"):
            index += 1
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return true }
            repeat {
                skipWhitespace()
                guard string() != nil else { return false }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return false }
                skipWhitespace()
                guard value(depth: depth + 1) else { return false }
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            return consume(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return true }
            repeat {
                skipWhitespace()
                guard value(depth: depth + 1) else { return false }
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            return consume(UInt8(ascii: "]"))
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let matches = text.withUTF8Buffer { bytes[index..<(index + count)].elementsEqual($0) }
        if matches { index += count }
        return matches
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() -> Bool {
        _ = consume(UInt8(ascii: "-"))
        guard let first = peek, first.isDigit else { return false }
        index += 1
        if first != UInt8(ascii: "0") { while let byte = peek, byte.isDigit { index += 1 } }
        if consume(UInt8(ascii: ".")) {
            guard let byte = peek, byte.isDigit else { return false }
            while let byte = peek, byte.isDigit { index += 1 }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard let byte = peek, byte.isDigit else { return false }
            while let byte = peek, byte.isDigit { index += 1 }
        }
        return true
    }
}

extension JSONScanner {
    /// The whole input as one `JSONValue`, or nil when it is not exactly one valid JSON value (surrounding
    /// whitespace allowed), holds a string that is not UTF-8, or a number beyond `Double`.
    static func value(of bytes: [UInt8]) -> JSONValue? {
        var scanner = JSONScanner(bytes)
        scanner.skipWhitespace()
        guard let value = scanner.jsonValue(depth: 1) else { return nil }
        scanner.skipWhitespace()
        // Not `? value : nil`: JSONValue is ExpressibleByNilLiteral, so that nil would be `.null`.
        guard scanner.index == bytes.count else { return nil }
        return value
    }

    private mutating func jsonValue(depth: Int) -> JSONValue? {
        guard depth <= Self.maxDepth, let byte = peek else { return nil }
        switch byte {
        case UInt8(ascii: "\""):
            return jsonString().map(JSONValue.string)
        case UInt8(ascii: "{"):
            index += 1
            skipWhitespace()
            var members: [String: JSONValue] = [:]
            if consume(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                skipWhitespace()
                guard let key = jsonString() else { return nil }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                guard let value = jsonValue(depth: depth + 1) else { return nil }
                // The first of duplicate keys, as JSONDecoder reads them: the gateway checks what the worker will see.
                if members[key] == nil { members[key] = value }
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "}")) else { return nil }
            return .object(members)
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            var elements: [JSONValue] = []
            if consume(UInt8(ascii: "]")) { return .array(elements) }
            repeat {
                skipWhitespace()
                guard let element = jsonValue(depth: depth + 1) else { return nil }
                elements.append(element)
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "]")) else { return nil }
            return .array(elements)
        case UInt8(ascii: "t"): return literal("true") ? JSONValue.bool(true) as JSONValue? : nil
        case UInt8(ascii: "f"): return literal("false") ? JSONValue.bool(false) as JSONValue? : nil
        case UInt8(ascii: "n"): return literal("null") ? JSONValue.null as JSONValue? : nil
        default:
            let start = index
            guard number(), let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else { return nil }
            return .number(value)
        }
    }

    /// A string at the cursor, unescaped; nil unless it is valid and UTF-8.
    private mutating func jsonString() -> String? {
        guard let range = string(), let raw = String(validating: bytes[range], as: UTF8.self) else { return nil }
        return raw.utf8.contains(UInt8(ascii: "\\")) ? JSONPeek.unescape(bytes[range]) : raw
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { self >= 0x30 && self <= 0x39 }
    fileprivate var isHexDigit: Bool { isDigit || (self >= 0x61 && self <= 0x66) || (self >= 0x41 && self <= 0x46) }
}
