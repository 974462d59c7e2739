import Bus
import Envelope
import Foundation
import Logging
import Metrics
import PostgresNIO
import PostgresSupport
import ServiceSupport

/// The rate limits of login, code verification, code mailing and refresh: the kit's back-offs
/// (`BackoffLimit`, shared by every auth instance) with `Backoff`'s schedule. Each request counts
/// against its client network (an IPv4 address, an IPv6 /64), against its account from that network,
/// and for all but refresh against its account from every network together, with a larger allowance
/// that does not hold a network the account has logged in from before. So a stranger's failures
/// hold up the stranger, and the owner keeps logging in from where they usually do.
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

    /// What a counter counts: a client network, an account from one network, an account from all.
    enum Scope: String, Sendable {
        case ip, accountNetwork = "account-network", account
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
        let counters = try await counters(keys, on: connection)
        if let seconds = try await database.blocked(counters.map(\.key), on: connection) {
            throw refusal(keys.action, OperationError(.rateLimited, "too many attempts; try again in \(seconds) s", retryAfter: seconds))
        }
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
        guard keys.account != nil else { return }
        try await database.transaction { connection in
            // The counters' locks first, in the order every attempt takes them: a login that
            // succeeds while another is counted must not take them the other way round (they deadlocked).
            let counters = try await counters(keys, on: connection)
            try await database.lockBackoffs(counters.map(\.key), on: connection)
            let own = counters.filter { $0.scope == (keys.network == nil ? .account : .accountNetwork) }
            let forgiven = admitted && keys.network != nil ? counters.filter { $0.scope != .accountNetwork } : []
            try await database.succeeded(reset: own.map(\.key), forgive: forgiven.map(\.key), on: connection)
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

    /// Drops networks the account has not logged in from for `retention`.
    func forgetNetworks(olderThan retention: Duration, on connection: PostgresConnection) async throws -> Int {
        try await connection.query(
            "DELETE FROM known_networks WHERE last_login_at < \(database.ago(retention)) RETURNING 1", logger: database.logger
        ).collect().count
    }

    /// Counts one attempt against each of `keys` and blocks a key past its free attempts, in the
    /// caller's transaction. When `admitting`, a key blocked already refuses the attempt instead, and
    /// throwing rolls back what this attempt counted so far. Each block is counted in
    /// `melon_auth_blocks_total`, and a block of an account's attempts is in its owner's security record.
    private func tally(_ keys: Keys, admitting: Bool, on connection: PostgresConnection) async throws {
        guard keys.account != nil || keys.network != nil else { return }
        let counters = try await counters(keys, on: connection)
        let blocked: [BackoffKey]
        do {
            blocked = try await database.countFailure(counters.map(\.key), admitting: admitting, on: connection)
        } catch let error as OperationError where error.code == .rateLimited {
            throw refusal(keys.action, error)
        }
        for counter in counters where blocked.contains(counter.key) {
            Counter(label: "melon_auth_blocks_total", dimensions: [("action", keys.action.rawValue), ("scope", counter.scope.rawValue)]).increment()
            if counter.scope != .ip, let account = keys.account {
                try await events.record(
                    .blocked, accountKey: account, ip: counter.scope == .account ? nil : keys.network, detail: keys.action.rawValue, on: connection)
            }
        }
    }

    /// Counts a refusal in `melon_auth_rate_limited_total` and returns it.
    private func refusal(_ action: Action, _ error: OperationError) -> OperationError {
        Counter(label: "melon_auth_rate_limited_total", dimensions: [("action", action.rawValue)]).increment()
        return error
    }

    /// The counters that apply to `keys`, in one order for every request (so locks never cross).
    private func counters(_ keys: Keys, on connection: PostgresConnection) async throws -> [(scope: Scope, key: BackoffKey)] {
        func counter(_ scope: Scope, _ key: RateLimitKey) -> (scope: Scope, key: BackoffKey) {
            (scope, BackoffKey(backoff.limit(keys.action, scope), key))
        }
        var counters: [(scope: Scope, key: BackoffKey)] = []
        if let network = keys.network { counters.append(counter(.ip, .network(network))) }
        guard let account = keys.account else { return counters }
        guard let network = keys.network else { return counters + [counter(.account, .account(account))] }
        counters.append(counter(.accountNetwork, .other("\(account) \(network)")))
        if keys.action.countsAccountWide, try await !isKnown(account: account, network: network, on: connection) {
            counters.append(counter(.account, .account(account)))
        }
        return counters
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
