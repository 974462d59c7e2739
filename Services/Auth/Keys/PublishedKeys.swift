import AccessTokens
import AuthContract

extension Auth.Keys.Jwks.Response {
    /// The JWKS that publishes `keys`' public halves, as the gateway fetches it.
    public init(publishing keys: [SigningKey]) throws {
        self.init(keys: try keys.map { key in
            let jwk = try key.jwk()
            return .init(kid: key.kid, x: jwk.x ?? "", y: jwk.y ?? "")
        })
    }
}
