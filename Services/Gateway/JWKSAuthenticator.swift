import AuthContract
import AccessTokens
import Bus
import Contracts
import Envelope
import Foundation
import Hummingbird
import JWTKit
import Logging
import Synchronization

/// Verifies `Authorization: Bearer` access tokens itself, against the auth service's JWKS: fetched
/// over the bus at the first token, again every `refreshInterval`, and early (at most every
/// `minimumRefetch`) when a token names a key it does not know yet, as after a rotation. No request
/// calls the auth service otherwise.
public final class JWKSAuthenticator: RequestAuthenticator {
    private let bus: BusClient
    private let audience: String
    private let issuer: String
    private let logger: Logger
    private let refreshInterval: Duration
    private let minimumRefetch: Duration
    private let state = Mutex(State())

    private struct State {
        var verifier: AccessTokenVerifier?
        var fetched: ContinuousClock.Instant?
        /// The fetch under way: every request that needs keys meanwhile awaits this one.
        var fetching: Task<AccessTokenVerifier, any Error>?
    }

    public init(bus: BusClient, audience: String, issuer: String, logger: Logger,
                refreshInterval: Duration = .seconds(300), minimumRefetch: Duration = .seconds(5)) {
        self.bus = bus
        self.audience = audience
        self.issuer = issuer
        self.logger = logger
        self.refreshInterval = refreshInterval
        self.minimumRefetch = minimumRefetch
    }

    public func authenticate(_ request: Request) async throws -> AuthenticatedCaller? {
        guard let header = request.headers[.authorization] else { return nil }
        guard header.count > 7, header.prefix(7).lowercased() == "bearer " else {
            throw OperationError(.unauthenticated, "the Authorization header must be Bearer <access token>")
        }
        let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        let verifier = try await currentVerifier()
        do throws(AccessTokenVerifier.Rejection) {
            return Self.caller(try await verifier.verify(token))
        } catch .untrustedKey {
            // Perhaps a key published since the last fetch (a rotation): fetch once more, then decide.
            guard let fresher = try? await refetch() else { throw OperationError(.unauthenticated, AccessTokenVerifier.Rejection.untrustedKey.description) }
            do throws(AccessTokenVerifier.Rejection) {
                return Self.caller(try await fresher.verify(token))
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
        let json = (try? JSONSerialization.data(withJSONObject: facts, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
        return AuthenticatedCaller(type: "app_user", id: claims.sub.value, claims: json)
    }

    private func currentVerifier() async throws -> AccessTokenVerifier {
        let (verifier, fetched) = state.withLock { ($0.verifier, $0.fetched) }
        if let verifier, let fetched, fetched.duration(to: .now) < refreshInterval { return verifier }
        do {
            return try await refetch()
        } catch {
            if let verifier { return verifier }  // keep serving with the keys we have
            throw OperationError(.unavailable, "the token keys could not be fetched from the auth service")
        }
    }

    /// Fetches the JWKS now, unless it was fetched within `minimumRefetch`. Concurrent callers share
    /// one fetch, so a burst of requests at start or at expiry asks the auth service once.
    private func refetch() async throws -> AccessTokenVerifier {
        enum Next { case ready(AccessTokenVerifier), wait(Task<AccessTokenVerifier, any Error>) }
        let next: Next = state.withLock { state in
            if let verifier = state.verifier, let fetched = state.fetched, fetched.duration(to: .now) < minimumRefetch { return .ready(verifier) }
            if let fetching = state.fetching { return .wait(fetching) }
            // Unstructured on purpose: the fetch belongs to no one request, and the first caller
            // being cancelled must not fail the others waiting on it. It ends with the call's 5 s timeout.
            let fetching = Task { try await self.fetch() }
            state.fetching = fetching
            return .wait(fetching)
        }
        switch next {
        case .ready(let verifier): return verifier
        case .wait(let fetching): return try await fetching.value
        }
    }

    private func fetch() async throws -> AccessTokenVerifier {
        do {
            let set = try await bus.call(Auth.Keys.Jwks.self, Empty(), options: CallOptions(timeout: .seconds(5)))
            let jwks = JWKS(keys: set.keys.map { .ecdsa(.es256, identifier: JWKIdentifier(string: $0.kid), x: $0.x, y: $0.y, curve: .p256) })
            let verifier = try await AccessTokenVerifier(jwks: jwks, audience: audience, issuer: issuer)
            state.withLock { $0 = State(verifier: verifier, fetched: .now, fetching: nil) }
            logger.info("access-token keys fetched", metadata: ["kids": "\(verifier.kids.sorted())"])
            return verifier
        } catch {
            state.withLock { $0.fetching = nil }
            logger.warning("access-token keys could not be fetched", metadata: ["error": "\(String(reflecting: error))"])
            throw error
        }
    }
}
