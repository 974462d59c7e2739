import Foundation
import JWTKit

/// Verifies access tokens against a JWKS, with no call to the auth service: only ES256, only keys
/// the set names by `kid`, and the expected audience and issuer; expired tokens are refused.
public struct AccessTokenVerifier: Sendable {
    /// Why a token was refused (the gateway answers 401 with it; it never names a key).
    public struct Rejection: Error, Equatable, CustomStringConvertible {
        public let description: String

        /// The header names a key this verifier does not trust (a newer key set may).
        public static let untrustedKey = Rejection(description: "the token was signed with a key that is not trusted")
    }

    public let audience: String
    public let issuer: String
    /// The key ids this verifier trusts.
    public let kids: Set<String>
    private let keys: JWTKeyCollection

    /// Trusts the ES256 keys of `jwks`; keys of other types or algorithms are ignored.
    public init(jwks: JWKS, audience: String, issuer: String) async throws {
        self.audience = audience
        self.issuer = issuer
        let usable = jwks.keys.filter { $0.keyType == .ecdsa && $0.algorithm == .es256 && $0.keyIdentifier != nil }
        keys = JWTKeyCollection()
        for key in usable { try await keys.add(jwk: key) }
        kids = Set(usable.compactMap { $0.keyIdentifier?.string })
    }

    /// The token's claims, when its signature, audience and issuer check out and it has not expired
    /// by `now` (the caller's clock; JWTKit checks the system's too).
    public func verify(_ token: String, now: Date = Date()) async throws(Rejection) -> AccessTokenClaims {
        // The header is checked before any key is used: ES256 and a known kid, nothing else.
        guard let header = Self.header(of: token), header.alg == "ES256" else { throw Rejection(description: "the token is not an ES256 JWT") }
        guard let kid = header.kid, kids.contains(kid) else { throw Rejection.untrustedKey }
        let claims: AccessTokenClaims
        do {
            claims = try await keys.verify(token, as: AccessTokenClaims.self)
        } catch let error as JWTError where error.errorType == .claimVerificationFailure {
            throw Rejection(description: "the token has expired")
        } catch {
            throw Rejection(description: "the token's signature or claims are not valid")
        }
        guard claims.exp.value > now else { throw Rejection(description: "the token has expired") }
        guard claims.aud.value.contains(audience) else { throw Rejection(description: "the token is for another audience") }
        guard claims.iss.value == issuer else { throw Rejection(description: "the token is from another issuer") }
        return claims
    }

    private struct Header: Decodable {
        let alg: String?
        let kid: String?
    }

    /// The decoded JOSE header, or nil when the token is not three base64url parts.
    public static func header(of token: String) -> (alg: String?, kid: String?)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Data(base64URL: String(parts[0])),
              let header = try? JSONDecoder().decode(Header.self, from: data) else { return nil }
        return (header.alg, header.kid)
    }
}

extension Data {
    /// Decodes unpadded base64url (RFC 4648 §5), as JWTs and refresh tokens use it.
    public init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }

    /// Unpadded base64url (RFC 4648 §5).
    public func base64URLEncodedString() -> String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
