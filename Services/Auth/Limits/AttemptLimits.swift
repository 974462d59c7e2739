import Bus
import Envelope
import Foundation
import Logging
import Metrics
import PostgresNIO
import PostgresSupport
import ServiceSupport

/// The rate limits of login, code verification, code mailing and refresh: counters in
/// `auth.attempts`, shared by every auth instance, with `Backoff`. Each request counts against its
/// client network (an IPv4 address, an IPv6 /64), against its account from that network, and for
/// all but refresh against its account from every network together, with a larger allowance that
/// does not hold a network the account has logged in from before. So a stranger's failures hold up
/// the stranger, and the owner keeps logging in from where they usually do.
///
/// Failed logins, wrong codes and refused refresh tokens count; for the actions that mail a code
/// (register, resend, forgot) every request counts, since each can send a mail. A blocked key is
/// refused with `rate_limited` and `retryAfter` before any work is done. A password check
/// (`admit`) counts before it verifies, so concurrent guesses cannot all pass one check.
struct AttemptLimits: Sendable {
    enum Action: String, Sendable {
        case login, code, mail, refresh

        /// Whether attempts add up for the account across networks too. A refresh token is 256
        /// random bits: a refused one counts for its network and its account there only.
        var countsAccountWide: Bool { self != .refresh }
    }

    /// The keys one request is counted against.
    struct Keys: Sendable {
        let action: Action
        /// The email as given (normalized), whether or not it has an account, or an account id.
        let account: String?
        /// The client network: the IP, IPv6 reduced to its /64 (one subscriber's network).
        let network: String?
    }

    let database: Database
    let backoff: Backoff
    let events: SecurityEventPostgresRepository

    func keys(_ action: Action, account: String?, _ context: RequestContext) -> Keys {
        Keys(action: action, account: account, network: context.attributes.clientIP.flatMap(ClientNetwork.key))
    }

    /// Throws `rate_limited` when any of `keys` is blocked.
    func check(_ keys: Keys) async throws {
        guard keys.account != nil || keys.network != nil else { return }
        try await database.transaction { try await check(keys, on: $0) }
    }

    /// `check(_:)` on the caller's connection.
    func check(_ keys: Keys, on connection: PostgresConnection) async throws {
        let pairs = try await pairs(keys, on: connection)
        guard !pairs.isEmpty else { return }
        let rows = try await connection.query(
            """
            SELECT ceil(extract(epoch FROM max(blocked_until) - \(database.now())))::int8 FROM attempts
            WHERE action = \(keys.action.rawValue) AND blocked_until > \(database.now())
              AND (scope, key) IN (SELECT * FROM unnest(\(pairs.map(\.scope))::text[], \(pairs.map(\.key))::text[]))
            """,
            logger: database.logger)
        var blocked: Int64?
        for try await seconds in rows.decode(Int64?.self) { blocked = seconds }
        if let blocked { throw refusal(keys.action, seconds: blocked) }
    }

    /// Counts the attempt before it is verified, refusing it (uncounted) while any key is blocked:
    /// row locks order concurrent attempts, so past the free ones the first blocks the rest.
    func admit(_ keys: Keys) async throws {
        try await database.transaction { try await admit(keys, on: $0) }
    }

    /// `admit(_:)` in the caller's transaction: the count stays only if it commits.
    func admit(_ keys: Keys, on connection: PostgresConnection) async throws {
        try await tally(keys, admitting: true, on: connection)
    }

    /// Counts one attempt against each of `keys`, blocking a key that is past its free attempts.
    func count(_ keys: Keys) async throws {
        try await database.transaction { try await tally(keys, admitting: false, on: $0) }
    }

    /// After the attempt succeeded: the account's count from this network starts again, and an
    /// attempt `admit` counted is taken off its network's and its account's counts. What other
    /// networks counted against the account stays.
    func succeeded(_ keys: Keys, admitted: Bool = false) async throws {
        guard let account = keys.account else { return }
        try await database.transaction { connection in
            // The rows' locks first, in the order every attempt takes them (`pairs`): a login that
            // succeeds while another is counted must not take them the other way round (they deadlocked).
            let all = try await pairs(keys, on: connection)
            try await connection.query(
                """
                SELECT 1 FROM attempts a
                JOIN unnest(\(all.map(\.scope))::text[], \(all.map(\.key))::text[]) WITH ORDINALITY AS p(scope, key, position)
                  ON a.scope = p.scope AND a.key = p.key
                WHERE a.action = \(keys.action.rawValue) ORDER BY p.position FOR UPDATE OF a
                """,
                logger: database.logger)
            let own = keys.network.map { ("account-network", "\(account) \($0)") } ?? ("account", account)
            try await connection.query(
                "DELETE FROM attempts WHERE action = \(keys.action.rawValue) AND scope = \(own.0) AND key = \(own.1)",
                logger: database.logger)
            guard admitted, keys.network != nil else { return }
            let pairs = all.filter { $0.scope != "account-network" }
            try await connection.query(
                """
                UPDATE attempts SET count = greatest(count - 1, 0)
                WHERE action = \(keys.action.rawValue)
                  AND (scope, key) IN (SELECT * FROM unnest(\(pairs.map(\.scope))::text[], \(pairs.map(\.key))::text[]))
                """,
                logger: database.logger)
        }
    }

    /// Remembers that `account` logged in from the request's network.
    func remember(account: UUID, _ context: RequestContext, on connection: PostgresConnection) async throws {
        guard let network = context.attributes.clientIP.flatMap(ClientNetwork.key) else { return }
        try await connection.query(
            """
            INSERT INTO known_networks (account_id, network, last_login_at) VALUES (\(account), \(network), \(database.now()))
            ON CONFLICT (account_id, network) DO UPDATE SET last_login_at = \(database.now())
            """,
            logger: database.logger)
    }

    /// Drops counters whose last attempt is past the window and whose block has ended.
    func sweep(on connection: PostgresConnection) async throws -> Int {
        return try await connection.query(
            """
            DELETE FROM attempts WHERE last_at < \(database.now()) - make_interval(secs => \(window))
              AND (blocked_until IS NULL OR blocked_until < \(database.now()))
            RETURNING 1
            """,
            logger: database.logger
        ).collect().count
    }

    /// Drops networks the account has not logged in from for `retention`.
    func forgetNetworks(olderThan retention: Duration, on connection: PostgresConnection) async throws -> Int {
        try await connection.query(
            "DELETE FROM known_networks WHERE last_login_at < \(database.now()) - make_interval(secs => \(Double(retention.milliseconds) / 1000)) RETURNING 1",
            logger: database.logger
        ).collect().count
    }

    private var window: Double { Double(backoff.window.milliseconds) / 1000 }

    /// Counts one attempt against each of `keys` and blocks a key past its free attempts, in the
    /// caller's transaction. When `admitting`, a key blocked already refuses the attempt instead, and
    /// throwing rolls back what this attempt counted so far.
    private func tally(_ keys: Keys, admitting: Bool, on connection: PostgresConnection) async throws {
        guard keys.account != nil || keys.network != nil else { return }
        for pair in try await pairs(keys, on: connection) {
            let rows = try await connection.query(
                """
                INSERT INTO attempts AS a (action, scope, key, count, last_at)
                VALUES (\(keys.action.rawValue), \(pair.scope), \(pair.key), 1, \(database.now()))
                ON CONFLICT (action, scope, key) DO UPDATE
                SET count = CASE WHEN \(admitting) AND a.blocked_until > \(database.now()) THEN a.count
                                 WHEN a.last_at < \(database.now()) - make_interval(secs => \(window)) THEN 1 ELSE a.count + 1 END,
                    last_at = CASE WHEN \(admitting) AND a.blocked_until > \(database.now()) THEN a.last_at ELSE \(database.now()) END
                RETURNING count,
                    CASE WHEN \(admitting) AND blocked_until > \(database.now()) THEN ceil(extract(epoch FROM blocked_until - \(database.now())))::int8 END
                """,
                logger: database.logger)
            for try await (count, blocked) in rows.decode((Int, Int64?).self) {
                if let blocked { throw refusal(keys.action, seconds: blocked) }
                try await block(keys, pair, after: count, on: connection)
            }
        }
    }

    private func refusal(_ action: Action, seconds: Int64) -> OperationError {
        Counter(label: "melon_auth_rate_limited_total", dimensions: [("action", action.rawValue)]).increment()
        return OperationError(.rateLimited, "too many attempts; try again in \(seconds) s", retryAfter: Int(max(1, seconds)))
    }

    /// Blocks `pair` when `count` is past its free attempts: counted in `melon_auth_blocks_total`,
    /// and a block of an account's attempts is in its owner's security record.
    private func block(_ keys: Keys, _ pair: (scope: String, key: String), after count: Int, on connection: PostgresConnection) async throws {
        let action = keys.action
        let free = switch pair.scope {
        case "ip": backoff.freePerIP
        case "account": backoff.freePerAccountAll
        default: backoff.freePerAccount
        }
        guard let block = backoff.block(afterAttempt: count, free: free) else { return }
        try await connection.query(
            """
            UPDATE attempts SET blocked_until = \(database.now()) + make_interval(secs => \(Double(block.milliseconds) / 1000))
            WHERE action = \(action.rawValue) AND scope = \(pair.scope) AND key = \(pair.key)
            """,
            logger: database.logger)
        Counter(label: "melon_auth_blocks_total", dimensions: [("action", action.rawValue), ("scope", pair.scope)]).increment()
        if pair.scope != "ip", let account = keys.account {
            try await events.record(.blocked, accountKey: account, ip: pair.scope == "account" ? nil : keys.network, detail: action.rawValue, on: connection)
        }
    }

    /// The counters that apply to `keys`, in one order for every request (so locks never cross).
    private func pairs(_ keys: Keys, on connection: PostgresConnection) async throws -> [(scope: String, key: String)] {
        var pairs: [(scope: String, key: String)] = []
        if let network = keys.network { pairs.append(("ip", network)) }
        guard let account = keys.account else { return pairs }
        guard let network = keys.network else { return pairs + [("account", account)] }
        pairs.append(("account-network", "\(account) \(network)"))
        if keys.action.countsAccountWide, try await !isKnown(account: account, network: network, on: connection) {
            pairs.append(("account", account))
        }
        return pairs
    }

    /// Whether the account (an email or an account id) has logged in from `network`.
    private func isKnown(account: String, network: String, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            SELECT 1 FROM known_networks k JOIN accounts a ON a.id = k.account_id
            WHERE k.network = \(network) AND \(unescaped: AccountPostgresRepository.column(naming: account)) = \(account)
            """,
            logger: database.logger)
        for try await _ in rows { return true }
        return false
    }
}
