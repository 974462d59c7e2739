import Crypto
import Envelope
import Foundation
import PostgresNIO

/// A limit on how often something may happen per key (an account, a client network, anything a
/// service names): at most `count` times in `window`. A sliding window counts the last `window`
/// up to now; a fixed one counts from the start of the current window (windows start at the Unix
/// epoch, so every instance agrees). Past it, the caller is refused with `rate_limited` and the
/// seconds until the next one is allowed (`Retry-After` at the gateway).
public struct RateLimit: Sendable, Hashable {
    public enum Window: Sendable, Hashable {
        case sliding, fixed
    }

    /// Names the limit in the table and the logs (`contacts.per.email`).
    public let name: String
    public let count: Int
    public let window: Duration
    public let kind: Window
    /// What the refused caller is told: "too many contact requests from this network".
    public let message: String

    public init(_ name: String, count: Int, per window: Duration, _ kind: Window = .sliding, message: String) {
        precondition(count > 0 && window > .zero, "a limit allows at least one per window")
        self.name = name
        self.count = count
        self.window = window
        self.kind = kind
        self.message = message
    }
}

/// What a limit counts against. The table keeps a hash of it, never the text (an address, an IP).
public enum RateLimitKey: Sendable, Hashable {
    case account(String)
    /// A client network (`ClientNetwork.key`: an IPv4 address, an IPv6 /64).
    case network(String)
    /// Anything else a service names (`email:ana@tcd.ie`, `listing:…`).
    case other(String)

    var hashed: String {
        let text = switch self {
        case .account(let id): "account:" + id
        case .network(let network): "network:" + network
        case .other(let key): "other:" + key
        }
        return SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

extension Database {
    /// Counts one use of `limit` against each of `keys` in the caller's transaction (so it counts
    /// only if the transaction commits), refusing with `rate_limited` when any key is at its count:
    /// then nothing is counted. Each key is locked for the transaction, in one order, so requests at
    /// once cannot all pass one check. `now` is the service's clock.
    public func hit(_ limit: RateLimit, _ keys: [RateLimitKey], at now: Date, on connection: PostgresConnection) async throws {
        let hashed = Set(keys.map(\.hashed)).sorted()
        for key in hashed {
            try await lockForTransaction(limit.name + "/" + key, seed: 7, on: connection)
        }
        for key in hashed {
            let (used, retryAfter) = try await usage(limit, hashedKey: key, at: now, on: connection)
            if used >= limit.count { throw OperationError(.rateLimited, limit.message, retryAfter: retryAfter) }
        }
        let expires = now.adding(limit.window)
        for key in hashed {
            try await connection.query(
                "INSERT INTO rate_limit_hits (name, key, at, expires_at) VALUES (\(limit.name), \(key), \(now), \(expires))", logger: logger)
        }
    }

    /// How many uses of `limit` `key` has in its window, and the seconds until one more is allowed
    /// when it is at the count.
    public func usage(_ limit: RateLimit, _ key: RateLimitKey, at now: Date, on connection: PostgresConnection) async throws -> (used: Int, retryAfter: Int) {
        try await usage(limit, hashedKey: key.hashed, at: now, on: connection)
    }

    private func usage(_ limit: RateLimit, hashedKey key: String, at now: Date, on connection: PostgresConnection) async throws -> (used: Int, retryAfter: Int) {
        let window = Double(limit.window.milliseconds) / 1000
        let start = switch limit.kind {
        case .sliding: now.addingTimeInterval(-window)
        case .fixed: Date(timeIntervalSince1970: (now.timeIntervalSince1970 / window).rounded(.down) * window)
        }
        // The hits still in the window, newest first: when at the count, the one that must leave
        // before another is allowed is the count-th newest.
        let rows = try await connection.query(
            """
            SELECT at FROM rate_limit_hits
            WHERE name = \(limit.name) AND key = \(key) AND (at > \(start) OR (\(limit.kind == .fixed) AND at = \(start))) AND at <= \(now)
            ORDER BY at DESC LIMIT \(limit.count)
            """,
            logger: logger)
        var hits: [Date] = []
        for try await at in rows.decode(Date.self) { hits.append(at) }
        guard hits.count >= limit.count, let leaving = hits.last else { return (hits.count, 0) }
        let frees = switch limit.kind {
        case .sliding: leaving.addingTimeInterval(window)
        case .fixed: start.addingTimeInterval(window)
        }
        return (hits.count, max(1, Int(frees.timeIntervalSince(now).rounded(.up))))
    }

    /// Forgets every use counted against `key` (an erased account's).
    public func forgetRateLimits(_ key: RateLimitKey, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM rate_limit_hits WHERE key = \(key.hashed)", logger: logger)
    }

    /// Drops the uses whose window has passed; returns how many.
    public func expireRateLimits(at now: Date, on connection: PostgresConnection) async throws -> Int {
        try await connection.query("DELETE FROM rate_limit_hits WHERE expires_at < \(now) RETURNING 1", logger: logger).collect().count
    }
}
