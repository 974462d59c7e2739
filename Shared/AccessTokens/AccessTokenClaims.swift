import Foundation
import JWTKit

/// The claims of a Melon access token: an ES256 JWT of at most 15 minutes that the auth service
/// signs and the gateway verifies on its own.
public struct AccessTokenClaims: JWTPayload, Equatable {
    /// The account id.
    public var sub: SubjectClaim
    /// The session (refresh-token family) the token belongs to; logout ends it.
    public var sid: String
    /// The university whose closed network the account belongs to, if any.
    public var univ: String?
    public var roles: [String]
    /// The account's username (OpenID Connect's `preferred_username`): services that show members
    /// to one another (the marketplace) keep it beside what they show.
    public var preferredUsername: String?
    /// The policies whose current version the account has signed and not withdrawn (`terms`,
    /// `marketplace-rules`, ...): a service that needs one checks it here. A new signature shows in
    /// the next token (refresh).
    public var agreements: [String]?
    /// The app the session was started for (`client_id`, RFC 9068): one of `ClientApp`'s ids.
    public var clientID: String
    public var aud: AudienceClaim
    public var iss: IssuerClaim
    public var iat: IssuedAtClaim
    public var exp: ExpirationClaim

    enum CodingKeys: String, CodingKey {
        case sub, sid, univ, roles, preferredUsername = "preferred_username", agreements = "agr", clientID = "client_id", aud, iss, iat, exp
    }

    public init(subject: String, session: String, university: String?, roles: [String], app: String, audience: String, issuer: String,
                issuedAt: Date, expiresAt: Date, username: String? = nil, agreements: [String]? = nil) {
        sub = SubjectClaim(value: subject)
        sid = session
        univ = university
        self.roles = roles
        preferredUsername = username
        self.agreements = agreements
        clientID = app
        aud = AudienceClaim(value: [audience])
        iss = IssuerClaim(value: issuer)
        iat = IssuedAtClaim(value: issuedAt)
        exp = ExpirationClaim(value: expiresAt)
    }

    /// JWTKit calls this after the signature checked out: the token must not have expired.
    public func verify(using _: some JWTAlgorithm) throws {
        try exp.verifyNotExpired()
    }
}
