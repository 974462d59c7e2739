import Bus
import Envelope
import Foundation
import Logging
import Metrics
import PostgresNIO
import PostgresSupport
import ServiceSupport

/// The rate limits of login, code verification, code mailing and refresh: counters per account and
/// per client IP in `auth.attempts`, shared by every auth instance, with `Backoff`.
///
/// Failed logins, wrong codes and refused refresh tokens count; for the actions that mail a code
/// (register, resend, forgot) every request counts, since each can send a mail. A blocked key is
/// refused with `rate_limited` and `retryAfter` before any work is done.
struct AttemptLimits: Sendable {
    enum Action: String, Sendable {
        case login, code, mail, refresh
    }

    /// The keys one request is counted against.
    struct Keys: Sendable {
        let action: Action
        /// The email as given (normalized), whether or not it has an account, or an account id.
        let account: String?
        /// The client IP, IPv6 reduced to its /64 (one subscriber's network).
        let ip: String?
    }

    let database: Database
    let backoff: Backoff

    func keys(_ action: Action, account: String?, _ context: RequestContext) -> Keys {
        Keys(action: action, account: account, ip: context.attributes.clientIP.flatMap(ClientNetwork.key))
    }

    /// Throws `rate_limited` when any of `keys` is blocked.
    func check(_ keys: Keys) async throws {
        guard !pairs(keys).isEmpty else { return }
        try await database.transaction { try await check(keys, on: $0) }
    }

    /// `check(_:)` on the caller's connection.
    func check(_ keys: Keys, on connection: PostgresConnection) async throws {
        let pairs = pairs(keys)
        guard !pairs.isEmpty else { return }
        let rows = try await connection.query(
            """
            SELECT ceil(extract(epoch FROM max(blocked_until) - now()))::int8 FROM attempts
            WHERE action = \(keys.action.rawValue) AND blocked_until > now()
              AND (scope, key) IN (SELECT * FROM unnest(\(pairs.map(\.scope))::text[], \(pairs.map(\.key))::text[]))
            """,
            logger: database.logger)
        var blocked: Int64?
        for try await seconds in rows.decode(Int64?.self) { blocked = seconds }
        guard let seconds = blocked else { return }
        Counter(label: "melon_auth_rate_limited_total", dimensions: [("action", keys.action.rawValue)]).increment()
        throw OperationError(.rateLimited, "too many attempts; try again in \(seconds) s", retryAfter: Int(max(1, seconds)))
    }

    /// Counts one attempt against each of `keys`, blocking a key that is past its free attempts.
    func count(_ keys: Keys) async throws {
        let pairs = pairs(keys)
        guard !pairs.isEmpty else { return }
        let window = Double(backoff.window.milliseconds) / 1000
        try await database.transaction { connection in
            for pair in pairs {
                let rows = try await connection.query(
                    """
                    INSERT INTO attempts AS a (action, scope, key, count, last_at)
                    VALUES (\(keys.action.rawValue), \(pair.scope), \(pair.key), 1, now())
                    ON CONFLICT (action, scope, key) DO UPDATE
                    SET count = CASE WHEN a.last_at < now() - make_interval(secs => \(window)) THEN 1 ELSE a.count + 1 END, last_at = now()
                    RETURNING count
                    """,
                    logger: database.logger)
                var count = 0
                for try await value in rows.decode(Int.self) { count = value }
                let free = pair.scope == "account" ? backoff.freePerAccount : backoff.freePerIP
                guard let block = backoff.block(afterAttempt: count, free: free) else { continue }
                try await connection.query(
                    """
                    UPDATE attempts SET blocked_until = now() + make_interval(secs => \(Double(block.milliseconds) / 1000))
                    WHERE action = \(keys.action.rawValue) AND scope = \(pair.scope) AND key = \(pair.key)
                    """,
                    logger: database.logger)
            }
        }
    }

    /// Forgets the account's attempts at the action (after it succeeded). The IP's stay.
    func clear(_ keys: Keys) async throws {
        guard let account = keys.account else { return }
        try await database.transaction { connection in
            _ = try await connection.query(
                "DELETE FROM attempts WHERE action = \(keys.action.rawValue) AND scope = 'account' AND key = \(account)",
                logger: database.logger)
        }
    }

    /// Drops counters whose last attempt is past the window and whose block has ended.
    func sweep(on connection: PostgresConnection) async throws -> Int {
        let window = Double(backoff.window.milliseconds) / 1000
        return try await connection.query(
            """
            DELETE FROM attempts WHERE last_at < now() - make_interval(secs => \(window))
              AND (blocked_until IS NULL OR blocked_until < now())
            RETURNING 1
            """,
            logger: database.logger
        ).collect().count
    }

    private func pairs(_ keys: Keys) -> [(scope: String, key: String)] {
        [keys.account.map { ("account", $0) }, keys.ip.map { ("ip", $0) }].compactMap { $0 }
    }
}
