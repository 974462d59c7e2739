import Crypto
import Foundation
import JWTKit

/// One ES256 signing key with its key id, as the auth service keeps it.
public struct SigningKey: Sendable {
    public let kid: String
    public let privateKey: P256.Signing.PrivateKey

    public init(kid: String, privateKey: P256.Signing.PrivateKey) {
        self.kid = kid
        self.privateKey = privateKey
    }

    /// A new key with a random id.
    public static func generate() -> SigningKey {
        SigningKey(kid: UUID().uuidString.lowercased(), privateKey: P256.Signing.PrivateKey())
    }

    /// The public half as a JWK (`kty` EC, `crv` P-256, `alg` ES256, `use` sig).
    public func jwk() throws -> JWK {
        guard let parameters = try ES256PublicKey(backing: privateKey.publicKey).parameters else {
            throw JWTError.invalidJWK(reason: "the key has no coordinates")
        }
        return .ecdsa(.es256, identifier: JWKIdentifier(string: kid), x: parameters.x, y: parameters.y, curve: .p256)
    }
}

/// Signs access tokens with the current key; the token header names the key (`kid`).
public struct AccessTokenSigner: Sendable {
    private let keys: JWTKeyCollection
    private let kid: JWKIdentifier

    public init(current: SigningKey) async throws {
        keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(backing: current.privateKey), kid: JWKIdentifier(string: current.kid))
        kid = JWKIdentifier(string: current.kid)
    }

    public func sign(_ claims: AccessTokenClaims) async throws -> String {
        try await keys.sign(claims, kid: kid)
    }
}
