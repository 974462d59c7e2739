import Hummingbird
import ServiceLifecycle

/// A caller whose credentials the gateway verified; it travels to services as the envelope's
/// auth-context extension (`authtype`, `authid`, `authclaims`).
public struct AuthenticatedCaller: Sendable, Equatable {
    /// CloudEvents auth-context `authtype`, such as `app_user`.
    public var type: String
    /// The account id.
    public var id: String
    /// Verified claims as a JSON object (roles, university), passed on unchanged.
    public var claims: String?
    /// The app the session was started for (the token's `client_id`): routes of another app refuse it.
    public var app: String?

    public init(type: String, id: String, claims: String? = nil, app: String? = nil) {
        self.type = type
        self.id = id
        self.claims = claims
        self.app = app
    }
}

/// Verifies the credentials a request carries. The gateway calls it for every request to a route
/// that needs a signed-in caller; it must not call another service per request.
public protocol RequestAuthenticator: Sendable {
    /// The verified caller, nil when the request carries no credentials; throws `unauthenticated`
    /// for credentials that do not verify.
    func authenticate(_ request: Request) async throws -> AuthenticatedCaller?
    /// What must run beside the gateway for the authenticator to work (a feed of ended sessions).
    var services: [any Service] { get }
}

extension RequestAuthenticator {
    public var services: [any Service] { [] }
}
