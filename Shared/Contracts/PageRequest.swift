import Envelope

/// A request for one page of a list, newest first: `limit` items older than `before` (the previous
/// page's `nextBefore`).
public struct PageRequest: Codable, Sendable, Equatable, FieldRules {
    /// Items per page when `limit` is left out.
    public static let defaultLimit = 20
    /// How many items a page may ask for.
    public static let limits = 1...100

    public var limit: Int?
    public var before: Int64?

    public init(limit: Int? = nil, before: Int64? = nil) {
        self.limit = limit
        self.before = before
    }

    public static let fieldRules: [String: FieldRule] = [
        "limit": FieldRule.range(limits).described("items per page, \(defaultLimit) when left out"),
        "before": FieldRule.range(1...Int64.max).described("the previous page's nextBefore"),
    ]

    /// The page size asked for, or `invalid` naming `data.limit`; `before` must be a `nextBefore`.
    public func checked() throws(OperationError) -> Int {
        var validation = Validation()
        let limit = limit ?? Self.defaultLimit
        validation.check(Self.limits.contains(limit), "data.limit", "must be from \(Self.limits.lowerBound) to \(Self.limits.upperBound)")
        if let before { validation.check(before > 0, "data.before", "must be a nextBefore from a previous page") }
        try validation.finish()
        return limit
    }
}
