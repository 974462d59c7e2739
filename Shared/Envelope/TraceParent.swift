/// A W3C Trace Context `traceparent` value: `00-<trace id>-<parent id>-<flags>`.
public struct TraceParent: Sendable, Equatable, CustomStringConvertible {
    /// 32 lowercase hex digits, not all zero.
    public let traceID: String
    /// 16 lowercase hex digits, not all zero: the span that made the call.
    public let parentID: String
    public let flags: String

    /// Starts a new sampled trace.
    public static func random() -> TraceParent {
        TraceParent(traceID: hex(bytes: 16), parentID: hex(bytes: 8), flags: "01")
    }

    /// Parses a header value; nil when it is not a valid version-00 traceparent.
    public init?(_ header: String) {
        let parts = header.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "00",
            Self.isHex(parts[1], count: 32), Self.isHex(parts[2], count: 16), Self.isHex(parts[3], count: 2),
            parts[1].contains(where: { $0 != "0" }), parts[2].contains(where: { $0 != "0" })
        else { return nil }
        self.init(traceID: String(parts[1]), parentID: String(parts[2]), flags: String(parts[3]))
    }

    private init(traceID: String, parentID: String, flags: String) {
        self.traceID = traceID
        self.parentID = parentID
        self.flags = flags
    }

    /// The same trace with a new span id, for the next hop.
    public func child() -> TraceParent {
        TraceParent(traceID: traceID, parentID: Self.hex(bytes: 8), flags: flags)
    }

    public var description: String { "00-\(traceID)-\(parentID)-\(flags)" }

    private static func isHex(_ text: Substring, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func hex(bytes: Int) -> String { RandomID.hex(bytes: bytes) }
}
