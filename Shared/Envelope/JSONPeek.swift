/// Reads a few top-level string members of a JSON object without decoding the rest.
///
/// The broker needs a request's `id`, `type` and `expirytime`, and the client a reply's
/// `correlationid`, for every message; a full decode there would cost more than the routing itself.
/// The input must be one valid JSON object (`JSONScanner` checks it). Keys are compared as written
/// (the envelope encoder never escapes them); the envelope decoder unescapes keys and refuses
/// duplicates, so a check that must not be dodged uses `Object.hasAny`, which unescapes too.
public enum JSONPeek {
    /// A JSON object's top-level members, scanned once for several peeks.
    public struct Object {
        let json: [UInt8]
        let members: [JSONScanner.Member]

        /// Nil when `json` is not one valid JSON object.
        public init?(_ json: [UInt8]) {
            guard let members = JSONScanner.members(of: json) else { return nil }
            self.json = json
            self.members = members
        }

        /// The values of the string members named in `keys`, in the order of `keys` (nil where
        /// absent or not a string).
        public func strings(_ keys: [StaticString]) -> [String?] {
            var found = [String?](repeating: nil, count: keys.count)
            for member in members where member.isString {
                for (slot, key) in keys.enumerated() where found[slot] == nil && key.withUTF8Buffer({ json[member.key].elementsEqual($0) }) {
                    found[slot] = unescape(json[(member.value.lowerBound + 1)..<(member.value.upperBound - 1)])
                }
            }
            return found
        }

        /// Whether a member is named one of `keys`, escapes in its name decoded (so `"auth\u0069d"`
        /// counts as `authid`); a name with an invalid escape counts too.
        public func hasAny(_ keys: Set<String>) -> Bool {
            members.contains { member in unescape(json[member.key]).map(keys.contains) ?? true }
        }
    }

    /// The values of the string members named in `keys`, in the order of `keys` (nil where absent or
    /// not a string), or nil when `json` is not an object.
    public static func strings(_ keys: [StaticString], in json: [UInt8]) -> [String?]? {
        Object(json)?.strings(keys)
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
