/// Why some bytes are not one JSON object, with the line and column where reading stopped.
public struct JSONSyntaxError: Error, Sendable, CustomStringConvertible {
    /// 1-based line of the first byte that could not be read.
    public let line: Int
    /// 1-based column (in bytes) of that byte.
    public let column: Int
    /// True when the input is well-formed JSON, just not an object (an array, a string, ...).
    public let isValidNonObject: Bool
    let isEmpty: Bool

    init(bytes: [UInt8], offset: Int, isValidNonObject: Bool) {
        let before = bytes[..<min(offset, bytes.count)]
        line = before.count { $0 == UInt8(ascii: "\n") } + 1
        column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
        self.isValidNonObject = isValidNonObject
        isEmpty = bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }

    public var description: String {
        if isEmpty { return "the body is empty; send one JSON object" }
        if isValidNonObject { return "the body must be a JSON object" }
        return "the body is not valid JSON: unexpected input at line \(line), column \(column)"
    }
}

/// A JSON object given as bytes, validated once, whose members can be combined with others without
/// decoding values (numbers keep their exact digits).
public struct JSONObjectBody: Sendable {
    public let bytes: [UInt8]
    private let members: [(key: String, value: Range<Int>)]

    /// Reads `bytes` as exactly one JSON object.
    public init(parsing bytes: [UInt8]) throws(JSONSyntaxError) {
        switch JSONScanner.membersOrFailure(of: bytes) {
        case .success(let members):
            self.bytes = bytes
            self.members = members.map { (JSONPeek.unescape(bytes[$0.key]) ?? "", $0.value) }
        case .failure(let error):
            throw error
        }
    }

    /// The member names, in order (unescaped).
    public var keys: [String] { members.map(\.key) }

    /// A new object: `leading` members first (each value already JSON), then this object's members.
    public func merged(with leading: [(key: String, json: [UInt8])]) -> [UInt8] {
        guard !leading.isEmpty else { return bytes }
        var writer = JSONObjectWriter(capacity: bytes.count + leading.count * 32)
        for member in leading { writer.member(key: member.key, json: member.json) }
        for member in members { writer.member(key: member.key, json: bytes[member.value]) }
        return writer.finish()
    }

    /// `text` as a JSON string literal.
    public static func stringLiteral(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        JSONObjectWriter.appendString(text, to: &out)
        return out
    }
}

extension JSONObjectBody {
    /// An object of `members` (each value already JSON).
    public static func object(_ members: [(key: String, json: [UInt8])]) -> [UInt8] {
        var writer = JSONObjectWriter(capacity: members.count * 32 + 2)
        for member in members { writer.member(key: member.key, json: member.json) }
        return writer.finish()
    }
}
