@testable import AccessTokens
import Crypto
import Foundation
import JWTKit
import Testing

/// Access tokens signed with one key and verified from a JWKS, and every way a bad token is refused.
@Suite(.timeLimit(.minutes(2))) struct AccessTokenTests {
    static let audience = "melon-api", issuer = "urn:melon:auth"

    static func claims(expiresIn seconds: TimeInterval = 900, audience: String = audience, issuer: String = issuer) -> AccessTokenClaims {
        AccessTokenClaims(
            subject: "acct-1", session: "sess-1", university: "tcd", roles: ["student"], app: "marketplace", audience: audience, issuer: issuer,
            issuedAt: Date(), expiresAt: Date().addingTimeInterval(seconds))
    }

    /// A verifier trusting `keys`, built from the JWKS as JSON, the way the gateway receives it.
    static func verifier(trusting keys: [SigningKey]) async throws -> AccessTokenVerifier {
        let json = try JSONEncoder().encode(JWKS(keys: try keys.map { try $0.jwk() }))
        return try await AccessTokenVerifier(jwks: try JSONDecoder().decode(JWKS.self, from: json), audience: audience, issuer: issuer)
    }

    private func rejection(_ token: String, by verifier: AccessTokenVerifier) async -> String? {
        do throws(AccessTokenVerifier.Rejection) {
            _ = try await verifier.verify(token)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aSignedTokenVerifiesWithItsClaims() async throws {
        let key = SigningKey.generate()
        let claims = Self.claims()
        let token = try await AccessTokenSigner(current: key).sign(claims)
        let verified = try await Self.verifier(trusting: [key, .generate()]).verify(token)
        #expect(verified.sub == claims.sub && verified.sid == "sess-1" && verified.univ == "tcd" && verified.roles == ["student"])
        #expect(AccessTokenVerifier.header(of: token)?.kid == key.kid)
        #expect(AccessTokenVerifier.header(of: token)?.alg == "ES256")
    }

    @Test func expiredWrongAudienceAndWrongIssuerAreRefused() async throws {
        let key = SigningKey.generate()
        let signer = try await AccessTokenSigner(current: key)
        let verifier = try await Self.verifier(trusting: [key])
        #expect(await rejection(try await signer.sign(Self.claims(expiresIn: -1)), by: verifier) == "the token has expired")
        #expect(await rejection(try await signer.sign(Self.claims(audience: "other-api")), by: verifier) == "the token is for another audience")
        #expect(await rejection(try await signer.sign(Self.claims(issuer: "urn:evil")), by: verifier) == "the token is from another issuer")
    }

    @Test func aKeyTheSetDoesNotNameAndAForgedSignatureAreRefused() async throws {
        let trusted = SigningKey.generate()
        let verifier = try await Self.verifier(trusting: [trusted])
        let stranger = try await AccessTokenSigner(current: .generate()).sign(Self.claims())
        #expect(await rejection(stranger, by: verifier) == "the token was signed with a key that is not trusted")

        // Another private key under the trusted key's id: the signature does not check out.
        let impostor = try await AccessTokenSigner(current: SigningKey(kid: trusted.kid, privateKey: P256.Signing.PrivateKey())).sign(Self.claims())
        #expect(await rejection(impostor, by: verifier) == "the token's signature or claims are not valid")

        // A genuine token whose payload was edited.
        let genuine = try await AccessTokenSigner(current: trusted).sign(Self.claims())
        var parts = genuine.split(separator: ".").map(String.init)
        var payload = try JSONSerialization.jsonObject(with: Data(base64URL: parts[1])!) as! [String: Any]
        payload["sub"] = "acct-admin"
        parts[1] = Self.base64URL(try JSONSerialization.data(withJSONObject: payload))
        #expect(await rejection(parts.joined(separator: "."), by: verifier) == "the token's signature or claims are not valid")
    }

    @Test func algNoneAndHMACWithThePublicKeyAreRefused() async throws {
        let key = SigningKey.generate()
        let verifier = try await Self.verifier(trusting: [key])
        let payload = Self.base64URL(try JSONEncoder().encode(Self.claims()))
        let none = Self.base64URL(Data(#"{"alg":"none","typ":"JWT","kid":"\#(key.kid)"}"#.utf8)) + "." + payload + "."
        #expect(await rejection(none, by: verifier) == "the token is not an ES256 JWT")

        // The classic confusion: HS256 keyed with the public key's bytes.
        let header = Self.base64URL(Data(#"{"alg":"HS256","typ":"JWT","kid":"\#(key.kid)"}"#.utf8))
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(header).\(payload)".utf8), using: SymmetricKey(data: key.privateKey.publicKey.x963Representation))
        let hs256 = "\(header).\(payload).\(Self.base64URL(Data(mac)))"
        #expect(await rejection(hs256, by: verifier) == "the token is not an ES256 JWT")
        #expect(await rejection("not.a.jwt", by: verifier) == "the token is not an ES256 JWT")
        #expect(await rejection("", by: verifier) == "the token is not an ES256 JWT")
    }

    /// A token of before tokens named their app: signed with the trusted key, without `client_id`.
    struct ClaimsWithoutApp: JWTPayload {
        var sub: SubjectClaim, sid: String, roles: [String], aud: AudienceClaim, iss: IssuerClaim, exp: ExpirationClaim
        func verify(using _: some JWTAlgorithm) throws { try exp.verifyNotExpired() }
    }

    @Test func aTokenThatNamesNoAppIsRefused() async throws {
        let key = SigningKey.generate()
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(backing: key.privateKey), kid: JWKIdentifier(string: key.kid))
        let token = try await keys.sign(
            ClaimsWithoutApp(
                sub: .init(value: "acct-1"), sid: "sess-1", roles: ["student"], aud: .init(value: [Self.audience]), iss: .init(value: Self.issuer),
                exp: .init(value: Date().addingTimeInterval(900))),
            kid: JWKIdentifier(string: key.kid))
        #expect(await rejection(token, by: try await Self.verifier(trusting: [key])) == "the token's signature or claims are not valid")
        let verified = try await Self.verifier(trusting: [key]).verify(try await AccessTokenSigner(current: key).sign(Self.claims()))
        #expect(verified.clientID == "marketplace")
    }

    static func base64URL(_ data: Data) -> String { data.base64URLEncodedString() }
}
