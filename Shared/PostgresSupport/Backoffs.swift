import Envelope
import Foundation
import PostgresNIO

/// A back-off on failures per key (logins, codes, card payments): `free` failures are allowed, then
/// each further one blocks the key, first for `first`, doubling up to `max`. A key with no failure
/// for `window` starts from zero again. Unlike a `RateLimit`, which counts every use, it counts what
/// the service calls a failure, and a success may forgive them.
public struct BackoffLimit: Sendable, Hashable {
    /// Names the back-off in the table and the logs (`login.ip`).
    public let name: String
    public let free: Int
    public let first: Duration
    public let max: Duration
    public let window: Duration

    public init(_ name: String, free: Int, first: Duration, max: Duration, window: Duration) {
        precondition(free >= 0 && first > .zero && max >= first && window > .zero, "a back-off blocks for a while, within its window")
        self.name = name
        self.free = free
        self.first = first
        self.max = max
        self.window = window
    }

    /// How long a key is blocked after its `count`-th failure; nil while failures are free.
    public func block(afterFailure count: Int) -> Duration? {
        guard count > free else { return nil }
        let doublings = Swift.min(count - free - 1, 40)
        let milliseconds = first.milliseconds.multipliedReportingOverflow(by: Int64(1) << doublings)
        return milliseconds.overflow ? max : Swift.min(.milliseconds(milliseconds.partialValue), max)
    }
}

/// One counter: a back-off and the key it counts against.
public struct BackoffKey: Sendable, Hashable {
    public let limit: BackoffLimit
    public let key: RateLimitKey

    public init(_ limit: BackoffLimit, _ key: RateLimitKey) {
        self.limit = limit
        self.key = key
    }
}

extension Database {
    /// Seconds until the longest block among `keys` ends; nil when none is blocked.
    public func blocked(_ keys: [BackoffKey], on connection: PostgresConnection) async throws -> Int? {
        guard !keys.isEmpty else { return nil }
        let now = now()
        let rows = try await connection.query(
            """
            SELECT ceil(extract(epoch FROM max(blocked_until) - \(now)))::int8 FROM backoffs
            WHERE blocked_until > \(now)
              AND (name, key) IN (SELECT * FROM unnest(\(keys.map(\.limit.name))::text[], \(keys.map(\.key.hashed))::text[]))
            """,
            logger: logger)
        for try await seconds in rows.decode(Int64?.self) { return seconds.map { Swift.max(1, Int($0)) } }
        return nil
    }

    /// Counts one failure against each of `keys`, in their order (each row stays locked for the
    /// caller's transaction, so give the keys in one order everywhere), blocking a key past its free
    /// failures. Returns the keys this failure blocked. When `admitting` (the failure is counted
    /// before the attempt is verified, so that attempts at once cannot all pass one check), a key
    /// already blocked refuses the attempt instead: `rate_limited` with the seconds left, and the
    /// caller's rollback takes back what was counted so far.
    public func countFailure(_ keys: [BackoffKey], admitting: Bool = false, on connection: PostgresConnection) async throws -> [BackoffKey] {
        let now = now()
        var blocked: [BackoffKey] = []
        for entry in keys {
            let windowStart = now.adding(.zero - entry.limit.window)
            let rows = try await connection.query(
                """
                INSERT INTO backoffs AS b (name, key, count, last_at, expires_at)
                VALUES (\(entry.limit.name), \(entry.key.hashed), 1, \(now), \(now.adding(entry.limit.window)))
                ON CONFLICT (name, key) DO UPDATE
                SET count = CASE WHEN \(admitting) AND b.blocked_until > \(now) THEN b.count
                                 WHEN b.last_at < \(windowStart) THEN 1 ELSE b.count + 1 END,
                    last_at = CASE WHEN \(admitting) AND b.blocked_until > \(now) THEN b.last_at ELSE \(now) END,
                    expires_at = CASE WHEN \(admitting) AND b.blocked_until > \(now) THEN b.expires_at ELSE EXCLUDED.expires_at END
                RETURNING count, CASE WHEN \(admitting) AND blocked_until > \(now) THEN ceil(extract(epoch FROM blocked_until - \(now)))::int8 END
                """,
                logger: logger)
            for try await (count, refusedFor) in rows.decode((Int, Int64?).self) {
                if let refusedFor {
                    throw OperationError(.rateLimited, "too many attempts; try again in \(refusedFor) s", retryAfter: Swift.max(1, Int(refusedFor)))
                }
                guard let block = entry.limit.block(afterFailure: count) else { continue }
                let until = now.adding(block)
                try await connection.query(
                    """
                    UPDATE backoffs SET blocked_until = \(until), expires_at = greatest(expires_at, \(until))
                    WHERE name = \(entry.limit.name) AND key = \(entry.key.hashed)
                    """,
                    logger: logger)
                blocked.append(entry)
            }
        }
        return blocked
    }

    /// Locks the counters of `keys` for the caller's transaction, in their order: what a success
    /// does first, so that it cannot cross a failure counted at the same moment (they deadlocked).
    public func lockBackoffs(_ keys: [BackoffKey], on connection: PostgresConnection) async throws {
        guard !keys.isEmpty else { return }
        try await connection.query(
            """
            SELECT 1 FROM backoffs b
            JOIN unnest(\(keys.map(\.limit.name))::text[], \(keys.map(\.key.hashed))::text[]) WITH ORDINALITY AS k(name, key, position)
              ON b.name = k.name AND b.key = k.key
            ORDER BY k.position FOR UPDATE OF b
            """,
            logger: logger)
    }

    /// After a success: `reset` starts from zero, and one failure is taken off each of `forgive`
    /// (a failure `countFailure(admitting:)` counted for the attempt that succeeded).
    public func succeeded(reset: [BackoffKey], forgive: [BackoffKey] = [], on connection: PostgresConnection) async throws {
        if !reset.isEmpty {
            try await connection.query(
                """
                DELETE FROM backoffs
                WHERE (name, key) IN (SELECT * FROM unnest(\(reset.map(\.limit.name))::text[], \(reset.map(\.key.hashed))::text[]))
                """,
                logger: logger)
        }
        if !forgive.isEmpty {
            try await connection.query(
                """
                UPDATE backoffs SET count = greatest(count - 1, 0)
                WHERE (name, key) IN (SELECT * FROM unnest(\(forgive.map(\.limit.name))::text[], \(forgive.map(\.key.hashed))::text[]))
                """,
                logger: logger)
        }
    }

    /// Drops the counters past their window whose block has ended; returns how many.
    public func expireBackoffs(on connection: PostgresConnection) async throws -> Int {
        let now = now()
        return try await connection.query(
            "DELETE FROM backoffs WHERE expires_at < \(now) AND (blocked_until IS NULL OR blocked_until < \(now)) RETURNING 1", logger: logger
        ).collect().count
    }

    /// Forgets every failure counted against `key` (an erased account's).
    public func forgetBackoffs(_ key: RateLimitKey, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM backoffs WHERE key = \(key.hashed)", logger: logger)
    }
}
