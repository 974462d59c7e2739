import Foundation

/// The CloudEvents 1.0 context attributes of a request, with Melon's extensions.
public struct RequestAttributes: Codable, Sendable, Equatable {
    public var specVersion: String
    /// Unique per request; replies carry it back as `correlationid`, receivers deduplicate on it.
    public var id: String
    /// `urn:melon:<process>`.
    public var source: String
    /// `<service>.<resource>.<verb>.v<N>`.
    public var type: String
    public var time: Date
    public var dataContentType: String?
    /// W3C trace context of the caller.
    public var traceParent: String?
    /// The absolute deadline; work still queued or starting after it is answered `deadline_exceeded`.
    public var expiryTime: Date?
    /// Makes a mutating request safe to retry: the first result is returned again.
    public var idempotencyKey: String?
    /// CloudEvents auth-context: `user`, `service_account`, `unauthenticated`, ...
    public var authType: String?
    /// The verified principal (the user id for `user`).
    public var authID: String?
    /// Verified claims the gateway passes on, as a JSON string.
    public var authClaims: String?
    /// The IP address of the client the gateway served (after trusted proxies), for per-client limits.
    public var clientIP: String?

    enum CodingKeys: String, CodingKey {
        case specVersion = "specversion", id, source, type, time, dataContentType = "datacontenttype"
        case traceParent = "traceparent", expiryTime = "expirytime", idempotencyKey = "idempotencykey"
        case authType = "authtype", authID = "authid", authClaims = "authclaims", clientIP = "clientip"
    }

    public init(
        id: String = RandomID.uuid(),
        source: String,
        type: String,
        time: Date = Date(),
        traceParent: String? = nil,
        expiryTime: Date? = nil,
        idempotencyKey: String? = nil,
        authType: String? = nil,
        authID: String? = nil,
        authClaims: String? = nil,
        clientIP: String? = nil
    ) {
        self.specVersion = "1.0"
        self.id = id
        self.source = source
        self.type = type
        self.time = time
        self.dataContentType = "application/json"
        self.traceParent = traceParent
        self.expiryTime = expiryTime
        self.idempotencyKey = idempotencyKey
        self.authType = authType
        self.authID = authID
        self.authClaims = authClaims
        self.clientIP = clientIP
    }
}

/// A request: the attributes and the operation's payload under `data`, flat on the wire.
public struct RequestEnvelope<Payload: Codable & Sendable>: Codable, Sendable {
    public var attributes: RequestAttributes
    public var data: Payload

    public init(attributes: RequestAttributes, data: Payload) {
        self.attributes = attributes
        self.data = data
    }

    private enum DataKey: String, CodingKey { case data }

    public init(from decoder: any Decoder) throws {
        attributes = try RequestAttributes(from: decoder)
        data = try decoder.container(keyedBy: DataKey.self).decode(Payload.self, forKey: .data)
    }

    public func encode(to encoder: any Encoder) throws {
        try attributes.encode(to: encoder)
        var container = encoder.container(keyedBy: DataKey.self)
        try container.encode(data, forKey: .data)
    }
}

extension RequestAttributes {
    /// A string claim the gateway passed on in `authclaims` (such as `sid`, the session id).
    public func claim(_ name: String) -> String? {
        guard let claims = authClaims, case .object(let members)? = try? JSONValue.parse(Array(claims.utf8)),
              case .string(let value)? = members[name]
        else { return nil }
        return value
    }

    /// A claim holding a list of strings (such as `roles`); empty when absent.
    public func claimList(_ name: String) -> [String] {
        guard let claims = authClaims, case .object(let members)? = try? JSONValue.parse(Array(claims.utf8)),
              case .array(let values)? = members[name]
        else { return [] }
        return values.compactMap { if case .string(let value) = $0 { value } else { nil } }
    }

    /// The app the caller's session is for (the token's `client_id`, passed on as the `app` claim).
    public var app: String? { claim("app") }

    /// The caller's university network (the token's `univ`), if any.
    public var university: String? { claim("univ") }

    /// The caller's username (the token's `preferred_username`).
    public var username: String? { claim("username") }

    /// The policies whose current version the caller signed (the token's `agr`).
    public var agreements: [String] { claimList("agreements") }

    /// The caller's roles (`user`, `moderator`, ...).
    public var roles: [String] { claimList("roles") }

    /// The account whose token the gateway verified (`authid`), if any.
    public var account: UUID? { authID.flatMap(UUID.init(uuidString:)) }

    /// The verified account, or `unauthenticated` saying that `what` (plural) needs one.
    public func signedInAccount(for what: String) throws(OperationError) -> UUID {
        guard let account else { throw OperationError(.unauthenticated, "\(what) need a signed-in caller") }
        return account
    }
}
