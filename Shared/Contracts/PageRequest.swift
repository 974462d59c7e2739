import Foundation
import Envelope

/// A request for one page of a list, in the list's own order (most lists: the newest first): `limit`
/// items after `after`, the previous page's `nextAfter`. Every list of the API pages this way
/// (docs/ARCHITECTURE.md, "Lists"): `limit`, `after` and `nextAfter`, whatever the order.
public struct PageRequest: Codable, Sendable, Equatable, FieldRules {
    /// Items per page when `limit` is left out.
    public static let defaultLimit = 20
    /// How many items a page may ask for.
    public static let limits = 1...100

    public var limit: Int?
    public var after: Int64?

    public init(limit: Int? = nil, after: Int64? = nil) {
        self.limit = limit
        self.after = after
    }

    public static let fieldRules: [String: FieldRule] = [
        "limit": FieldRule.range(limits).described("items per page, \(defaultLimit) when left out"),
        "after": FieldRule.range(1...Int64.max).described("the previous page's nextAfter"),
    ]

    /// The page size asked for, or `invalid` naming `data.limit`; `after` must be a `nextAfter`.
    public func checked() throws(OperationError) -> Int {
        var validation = Validation()
        let limit = limit ?? Self.defaultLimit
        validation.check(Self.limits.contains(limit), "data.limit", "must be from \(Self.limits.lowerBound) to \(Self.limits.upperBound)")
        if let after { validation.check(after > 0, "data.after", "must be a nextAfter from a previous page") }
        try validation.finish()
        return limit
    }
}

/// The text of a keyset page's cursor (`nextAfter`): its parts joined with `~`, in unpadded
/// base64url, so a client passes it back untouched. The parts are the query's own to check when it
/// reads one back (a forged cursor must reach SQL as nothing but what each part says it is).
public enum PageCursor {
    public static func text(_ parts: [String]) -> String {
        Data(parts.joined(separator: "~").utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The parts of a cursor `text` made, or nil when it is not one.
    public static func parts(_ text: String) -> [String]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let decoded = String(data: data, encoding: .utf8) else { return nil }
        return decoded.split(separator: "~", omittingEmptySubsequences: false).map(String.init)
    }
}
