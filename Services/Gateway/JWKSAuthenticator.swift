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
    private let state = Mutex<(verifier: AccessTokenVerifier?, fetched: ContinuousClock.Instant?)>((nil, nil))

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
        var facts: [String: Any] = ["sid": claims.sid, "roles": claims.roles]
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

    /// Fetches the JWKS now, unless it was fetched within `minimumRefetch`.
    private func refetch() async throws -> AccessTokenVerifier {
        if let (verifier, fetched) = state.withLock({ state in state.verifier.map { ($0, state.fetched!) } }),
           fetched.duration(to: .now) < minimumRefetch {
            return verifier
        }
        let set = try await bus.call(Auth.Keys.Jwks.self, Empty(), options: CallOptions(timeout: .seconds(5)))
        let jwks = JWKS(keys: set.keys.map { .ecdsa(.es256, identifier: JWKIdentifier(string: $0.kid), x: $0.x, y: $0.y, curve: .p256) })
        let verifier = try await AccessTokenVerifier(jwks: jwks, audience: audience, issuer: issuer)
        state.withLock { $0 = (verifier, .now) }
        logger.info("access-token keys fetched", metadata: ["kids": "\(verifier.kids.sorted())"])
        return verifier
    }
}
