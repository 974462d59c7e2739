import AuthContract
import AccessTokens
import Bus
import Contracts
import Envelope
import Foundation
import Hummingbird
import JWTKit
import Logging
import ServiceLifecycle
import ServiceSupport
import Synchronization

/// Verifies `Authorization: Bearer` access tokens itself, against the auth service's JWKS. The keys
/// are fetched over the bus at the first token; once they are `refreshInterval` old, the next request
/// starts a fetch behind the scenes and is served with the cached keys meanwhile. A token naming a key
/// it does not know yet (after a rotation) fetches early, at most every `minimumRefetch`. A failed or
/// slow fetch backs off (`retryBackoff`, doubling up to `retryBackoffLimit`) instead of asking on every
/// request, and once the cached keys are `maxKeyAge` old no token is accepted (503) until a fetch
/// succeeds. A token of a session that has ended is refused (`revocations`). No request calls the
/// auth service otherwise.
///
/// A signed-in client sends the same token with every request for up to 15 minutes, so a token
/// verified once is remembered until it expires (at most `verifiedLimit` of them; all are forgotten
/// when the keys are fetched again): its signature is checked and its claims decoded once, not per
/// request. Key freshness and revocation are still checked on every request.
public final class JWKSAuthenticator: RequestAuthenticator {
    private let bus: BusClient
    /// The ended sessions, when tokens are checked against them.
    private let revocations: SessionRevocations?
    private let audience: String
    private let issuer: String
    private let logger: Logger
    private let refreshInterval: Duration
    private let minimumRefetch: Duration
    private let maxKeyAge: Duration
    private let retryBackoff: Duration
    private let retryBackoffLimit: Duration
    private let verifiedLimit: Int
    private let state = Mutex(State())
    /// Token expiries are read on its time of day, key ages and back-offs on its monotonic time.
    private let clock: ServiceClock
    /// Tokens verified before, by the token itself, with the caller they name.
    private let verified = Mutex([String: Verified]())

    private struct Verified {
        let caller: AuthenticatedCaller
        let session: String
        let expires: Date
    }

    private struct State {
        var verifier: AccessTokenVerifier?
        /// When the keys were last fetched successfully.
        var fetched: ContinuousClock.Instant?
        /// The fetch under way: every request that needs keys meanwhile awaits this one.
        var fetching: Task<AccessTokenVerifier, any Error>?
        /// Fetches failed in a row, and the earliest moment to try again.
        var failures = 0
        var retryAt: ContinuousClock.Instant?
    }

    public init(bus: BusClient, revocations: SessionRevocations?, audience: String, issuer: String, logger: Logger,
                refreshInterval: Duration = .seconds(300), minimumRefetch: Duration = .seconds(5),
                maxKeyAge: Duration, retryBackoff: Duration = .seconds(1), retryBackoffLimit: Duration = .seconds(15),
                verifiedLimit: Int = 10_000, clock: ServiceClock = .system) {
        self.verifiedLimit = verifiedLimit
        self.clock = clock
        self.bus = bus
        self.revocations = revocations
        self.audience = audience
        self.issuer = issuer
        self.logger = logger
        self.refreshInterval = refreshInterval
        self.minimumRefetch = minimumRefetch
        self.maxKeyAge = maxKeyAge
        self.retryBackoff = retryBackoff
        self.retryBackoffLimit = retryBackoffLimit
    }

    public var services: [any Service] { [revocations].compactMap { $0 } }

    public func authenticate(_ request: Request) async throws -> AuthenticatedCaller? {
        guard let header = request.headers[.authorization] else { return nil }
        guard let token = Self.bearerToken(header) else {
            throw OperationError(.unauthenticated, "the Authorization header must be Bearer <access token>")
        }
        let verifier = try await currentVerifier()
        let now = clock.now()
        if let known = verified.withLock({ $0[token] }), known.expires > now {
            try await revocations?.check(known.session)
            return known.caller
        }
        let claims = try await verify(token, with: verifier, now: now)
        try await revocations?.check(claims.sid)
        let caller = Self.caller(claims)
        remember(Verified(caller: caller, session: claims.sid, expires: claims.exp.value), as: token, now: now)
        return caller
    }

    /// The token of `Bearer <token>` (the scheme in any case), without the spaces and tabs around
    /// it; nil for another scheme or nothing after it. Read byte by byte: Foundation's trimming went
    /// through UTF-16 and cost more than the cached token's check on every signed-in request.
    static func bearerToken(_ header: String) -> String? {
        let bytes = Array(header.utf8), scheme = Array("bearer ".utf8)
        guard bytes.count > scheme.count, zip(bytes, scheme).allSatisfy({ byte, expected in
            byte == expected || ((0x41...0x5A).contains(byte) && byte + 0x20 == expected)
        }) else { return nil }
        func blank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        guard let first = bytes[scheme.count...].firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) }) else {
            return nil
        }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    /// Keeps a verified token until it expires; a full cache drops the expired ones, and if that is
    /// not enough, all of them (they are verified again on their next use).
    private func remember(_ entry: Verified, as token: String, now: Date) {
        verified.withLock { tokens in
            if tokens.count >= verifiedLimit {
                tokens = tokens.filter { $0.value.expires > now }
                if tokens.count >= verifiedLimit { tokens.removeAll(keepingCapacity: true) }
            }
            tokens[token] = entry
        }
    }

    private func verify(_ token: String, with verifier: AccessTokenVerifier, now: Date) async throws -> AccessTokenClaims {
        do throws(AccessTokenVerifier.Rejection) {
            return try await verifier.verify(token, now: now)
        } catch .untrustedKey {
            // Perhaps a key published since the last fetch (a rotation): fetch once more, then decide.
            guard let fresher = try? await refetch() else { throw OperationError(.unauthenticated, AccessTokenVerifier.Rejection.untrustedKey.description) }
            do throws(AccessTokenVerifier.Rejection) {
                return try await fresher.verify(token, now: now)
            } catch {
                throw OperationError(.unauthenticated, error.description)
            }
        } catch {
            throw OperationError(.unauthenticated, error.description)
        }
    }

    private static func caller(_ claims: AccessTokenClaims) -> AuthenticatedCaller {
        var facts: [String: Any] = ["sid": claims.sid, "roles": claims.roles, "app": claims.clientID]
        if let university = claims.univ { facts["univ"] = university }
        if let username = claims.preferredUsername { facts["username"] = username }
        if let agreements = claims.agreements { facts["agreements"] = agreements }
        let json = (try? JSONSerialization.data(withJSONObject: facts, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
        return AuthenticatedCaller(type: "app_user", id: claims.sub.value, claims: json, app: claims.clientID)
    }

    /// The keys to verify with: the cached ones while younger than `maxKeyAge` (refreshed behind
    /// the scenes once `refreshInterval` old), else a fetch now.
    private func currentVerifier() async throws -> AccessTokenVerifier {
        let now = clock.instant()
        let (verifier, fetched) = state.withLock { ($0.verifier, $0.fetched) }
        if let verifier, let fetched, fetched.duration(to: now) < maxKeyAge {
            if fetched.duration(to: now) >= refreshInterval { _ = startFetch(now: now) }
            return verifier
        }
        guard let fetching = startFetch(now: now) else {
            throw OperationError(.unavailable, "the token keys could not be fetched from the auth service; retrying shortly")
        }
        do {
            return try await fetching.value
        } catch {
            throw OperationError(.unavailable, "the token keys could not be fetched from the auth service")
        }
    }

    /// Fetches the JWKS now for a token naming an unknown key, unless the keys were fetched within
    /// `minimumRefetch` or fetches are backing off.
    private func refetch() async throws -> AccessTokenVerifier {
        let now = clock.instant()
        let recent: AccessTokenVerifier? = state.withLock { state in
            guard let fetched = state.fetched, fetched.duration(to: now) < minimumRefetch else { return nil }
            return state.verifier
        }
        if let recent { return recent }
        guard let fetching = startFetch(now: now) else { throw OperationError(.unavailable, "the token keys are being fetched again shortly") }
        return try await fetching.value
    }

    /// The fetch under way, or a new one; nil while fetches back off after a failure. Concurrent
    /// callers share one fetch, so a burst of requests asks the auth service once.
    private func startFetch(now: ContinuousClock.Instant) -> Task<AccessTokenVerifier, any Error>? {
        state.withLock { state in
            if let fetching = state.fetching { return fetching }
            if let retryAt = state.retryAt, now < retryAt { return nil }
            // Unstructured on purpose: the fetch belongs to no one request, and the first caller
            // being cancelled must not fail the others waiting on it. It ends with the call's 5 s timeout.
            let fetching = Task { try await self.fetch() }
            state.fetching = fetching
            return fetching
        }
    }

    private func fetch() async throws -> AccessTokenVerifier {
        do {
            let set = try await bus.call(Auth.Keys.Jwks.self, Empty(), options: CallOptions(timeout: .seconds(5)))
            let jwks = JWKS(keys: set.keys.map { .ecdsa(.es256, identifier: JWKIdentifier(string: $0.kid), x: $0.x, y: $0.y, curve: .p256) })
            let verifier = try await AccessTokenVerifier(jwks: jwks, audience: audience, issuer: issuer)
            state.withLock { $0 = State(verifier: verifier, fetched: clock.instant()) }
            // Tokens verified with the old set are checked again against the new one.
            verified.withLock { $0.removeAll() }
            logger.info("access-token keys fetched", metadata: ["kids": "\(verifier.kids.sorted())"])
            return verifier
        } catch {
            let wait = state.withLock { state in
                state.fetching = nil
                state.failures += 1
                // Bounded well below the refresh interval: auth back after an outage is asked again soon.
                let wait = min(retryBackoffLimit, retryBackoff * (1 << min(state.failures - 1, 20)))
                state.retryAt = clock.instant() + wait
                return wait
            }
            logger.warning("access-token keys could not be fetched", metadata: [
                "error": "\(String(reflecting: error))", "retry_in_ms": "\(wait.milliseconds)",
            ])
            throw error
        }
    }
}
