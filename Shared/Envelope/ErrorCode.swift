/// The outcome codes a reply can carry; ARCHITECTURE.md maps each to one HTTP status at the gateway.
public enum ErrorCode: String, Codable, Sendable, CaseIterable {
    case invalid
    case unauthenticated
    case forbidden
    case notFound = "not_found"
    case conflict
    case gone
    case tooLarge = "too_large"
    case rateLimited = "rate_limited"
    case `internal`
    case unavailable
    case deadlineExceeded = "deadline_exceeded"

    /// True for failures a caller may retry with backoff while its deadline allows.
    public var isRetryable: Bool { self == .unavailable }
}

/// A reply's `outcome`: `ok`, or the error code.
public enum Outcome: Sendable, Equatable, Codable, CustomStringConvertible {
    case ok
    case error(ErrorCode)

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        self = raw == "ok" ? .ok : .error(ErrorCode(rawValue: raw) ?? .internal)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public var description: String {
        switch self {
        case .ok: "ok"
        case .error(let code): code.rawValue
        }
    }
}
