import Envelope

/// How clients reach an operation over HTTP. Path parameters (`{id}`) and, for GET, query
/// parameters are members of the request; the other members form the JSON body. Their kinds and
/// limits come from the request's schema.
public struct HTTPBinding: Sendable {
    public enum Method: String, Sendable, CaseIterable {
        case get = "GET", post = "POST", put = "PUT", patch = "PATCH", delete = "DELETE"
    }

    /// Who may call the route.
    public enum Access: String, Sendable {
        case anyone
        /// A verified access token is required; without one the answer is 401.
        case signedIn
        /// Signed in, and the operation acts only on the caller's own things: someone else's are
        /// `not_found`, as if they did not exist.
        case owner
        /// Signed in, and a member of what the path names (a household): any member may call, and
        /// to anyone else it is `not_found`, as if it did not exist. What only some members may do
        /// (the household's owner) the route's summary says, and the others get `forbidden`.
        case member

        /// Whether someone else's things are hidden from the caller (`not_found`): what the stranger walk walks.
        public var hidesOthers: Bool { self == .owner || self == .member }

        /// Whether the gateway needs a verified token.
        public var needsToken: Bool { self != .anyone }

        /// Who may call, as the API document and the READMEs say it.
        public var caller: String {
            switch self {
            case .anyone: "anyone"
            case .signedIn: "signed in"
            case .owner: "the owner"
            case .member: "a member of what the path names"
            }
        }
    }

    /// The success status, among those the API answers with.
    public enum Status: Int, Sendable {
        case ok = 200, created = 201, accepted = 202
    }

    public var method: Method
    /// OpenAPI form: `/v1/items/{id}`.
    public var path: String
    /// The route's name in the API document (its `operationId`), which generated clients call it by:
    /// lowerCamelCase, the area first, unique among all routes (`refundsEstimate`, `meGet`).
    public var name: String
    public var access: Access
    public var status: Status
    /// The error codes the operation answers with besides those every route can give.
    public var errors: [ErrorCode]
    /// One line for the API document.
    public var summary: String
    /// Rules for path and query parameters that differ on this route from the request's own (a
    /// shorter text in a path, say).
    public var parameterRules: [String: FieldRule]
    /// Set when the route answers with a file rather than JSON: which reply members hold it.
    public var file: FileReply?
    /// Set when the route takes a file as its body rather than JSON: which request members get it.
    public var upload: FileUpload?
    /// A body a client might send, as JSON: the API document's example (a test checks it against
    /// the request's schema).
    public var example: String?
    /// Whose sessions may call this route when it differs from its service's (`ServiceContract.apps`).
    public var apps: AppScope?

    /// A reply that reaches the client as a file: the bytes of one member (base64 in the reply's
    /// JSON), with a media type and a file name to save it under.
    public struct FileReply: Sendable {
        /// The reply member holding the bytes.
        public var content: String
        public var mediaType: String
        /// The reply member holding the file name, for `Content-Disposition: attachment`.
        public var fileName: String?
        /// The reply member holding the file's entity tag (quoted, as HTTP writes it): sent as
        /// `ETag`, and a request whose `If-None-Match` names it is answered 304 without the file.
        public var etag: String?
        /// The request member (undocumented: not a query parameter) the gateway fills with the
        /// request's `If-None-Match`, so that the service can leave out a file the client has.
        public var ifNoneMatch: String?
        /// The reply member holding the file's media type when it varies (an image that may be a
        /// PNG or a JPEG); `mediaType` then names the range the API document shows (`image/*`).
        public var mediaTypeMember: String?
        /// The `Cache-Control` the file is sent with: `no-store` unless the route says otherwise.
        public var cacheControl: String

        public init(
            content: String, mediaType: String, fileName: String? = nil, etag: String? = nil, ifNoneMatch: String? = nil,
            mediaTypeMember: String? = nil, cacheControl: String = "no-store"
        ) {
            self.content = content
            self.mediaType = mediaType
            self.fileName = fileName
            self.etag = etag
            self.ifNoneMatch = ifNoneMatch
            self.mediaTypeMember = mediaTypeMember
            self.cacheControl = cacheControl
        }

        /// The longest `If-None-Match` the gateway passes on (longer ones are ignored: the file comes whole).
        public static let ifNoneMatchBytes = 1_024

        /// Whether an `If-None-Match` value names `etag` (or is `*`), comparing weakly as RFC 9110
        /// (13.1.2) has it: a `W/` prefix does not count.
        public static func matches(ifNoneMatch: String, etag: String) -> Bool {
            let named = ifNoneMatch.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return named.contains { $0 == "*" || $0 == etag || $0 == "W/" + etag }
        }

        /// For a service: whether the request's `ifNoneMatch` member (if any, and not longer than
        /// `ifNoneMatchBytes`, as the gateway passes it) names `etag`, so the file can be left out.
        public static func clientHas(_ etag: String, ifNoneMatch: String?) -> Bool {
            guard let ifNoneMatch, ifNoneMatch.utf8.count <= ifNoneMatchBytes else { return false }
            return matches(ifNoneMatch: ifNoneMatch, etag: etag)
        }
    }

    /// A request whose body is a file sent as itself (`Content-Type: image/jpeg` and the bytes), not
    /// JSON: the gateway checks the media type and the size, and hands the operation the bytes
    /// (base64 on the bus) and the media type in two request members, and the named headers in
    /// members of their own. The bytes are exactly those received, so a signature over them (a
    /// webhook's) can be checked by the operation.
    public struct FileUpload: Sendable {
        /// The request member that gets the bytes (`Data`).
        public var content: String
        /// The request member that gets the body's media type, lowercased, without parameters.
        public var mediaType: String
        /// The media types the body may have; others are 415.
        public var mediaTypes: [String]
        /// The largest body; a larger one is 413 (`too_large`) before it reaches the bus.
        public var maxBytes: Int
        /// Request headers the operation gets, by header name (`Stripe-Signature`) to request member
        /// (`signature`); a header not sent leaves its member out.
        public var headers: [String: String]

        public init(content: String = "content", mediaType: String = "mediaType", mediaTypes: [String], maxBytes: Int, headers: [String: String] = [:]) {
            self.content = content
            self.mediaType = mediaType
            self.mediaTypes = mediaTypes
            self.maxBytes = maxBytes
            self.headers = headers
        }
    }

    public init(
        _ method: Method, _ path: String, name: String, access: Access = .anyone, status: Status = .ok, errors: [ErrorCode] = [],
        summary: String, parameterRules: [String: FieldRule] = [:], file: FileReply? = nil, upload: FileUpload? = nil, example: String? = nil,
        requiresIdempotencyKey: Bool = false, apps: AppScope? = nil
    ) {
        precondition(apps == nil || access.needsToken, "\(path): a route anyone may call reads no session, so no app")
        self.method = method
        self.path = path
        self.name = name
        self.access = access
        self.status = status
        self.errors = errors
        self.summary = summary
        self.parameterRules = parameterRules
        self.file = file
        self.upload = upload
        self.example = example
        self.requiresIdempotencyKey = requiresIdempotencyKey
        self.apps = apps
    }

    /// The `{name}` segments of the path.
    public var pathParameters: [String] {
        path.split(separator: "/").compactMap { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") ? String(segment.dropFirst().dropLast()) : nil
        }
    }

    /// The client must send an `Idempotency-Key` (a donation: a request without one, repeated,
    /// would charge twice); the gateway refuses the request without one. Otherwise a mutating
    /// request without one gets its request id as its key.
    public var requiresIdempotencyKey: Bool

    /// True for methods that change something: they carry an idempotency key.
    public var isMutating: Bool { method != .get }
}
