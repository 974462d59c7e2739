import Envelope
import HTTPTypes

/// One HTTP endpoint of the API and the bus operation behind it, with everything the OpenAPI
/// document says about it. The service's route file builds these; the gateway serves them.
public struct BusRoute: Sendable {
    /// Who may call the route.
    public enum Access: Sendable {
        case anyone
        /// A verified access token is required; without one the answer is 401.
        case signedIn
    }

    /// A path or query parameter, copied into the operation's `data` under its own name. The gateway
    /// checks it against its constraints (the same ones the OpenAPI document states).
    public struct Parameter: Sendable {
        public enum Location: String, Sendable { case path, query }
        public enum Kind: String, Sendable { case string, integer, boolean }

        public var name: String
        public var location: Location
        public var kind: Kind
        public var required: Bool
        public var description: String
        /// Length bounds of a string, in Unicode scalars (as JSON Schema counts).
        public var length: ClosedRange<Int>?
        /// Bounds of an integer.
        public var range: ClosedRange<Int64>?
        /// The values a string may take.
        public var allowed: [String]?

        public init(_ name: String, in location: Location, _ kind: Kind = .string, required: Bool? = nil,
                    description: String, length: ClosedRange<Int>? = nil, range: ClosedRange<Int64>? = nil,
                    allowed: [String]? = nil) {
            self.name = name
            self.location = location
            self.kind = kind
            self.required = required ?? (location == .path)
            self.description = description
            self.length = length
            self.range = range
            self.allowed = allowed
        }

        /// The parameter's JSON Schema.
        var schema: JSONValue {
            var schema: [String: JSONValue] = ["type": .string(kind.rawValue)]
            if let length {
                schema["minLength"] = .number(Double(length.lowerBound))
                schema["maxLength"] = .number(Double(length.upperBound))
            }
            if let range {
                schema["minimum"] = .number(Double(range.lowerBound))
                schema["maximum"] = .number(Double(range.upperBound))
            }
            if let allowed { schema["enum"] = .array(allowed.map(JSONValue.string)) }
            return .object(schema)
        }

        /// `text` as the JSON value of this parameter, or `invalid` naming it.
        func json(_ text: String) throws(OperationError) -> [UInt8] {
            switch kind {
            case .string:
                if let length, !length.contains(text.unicodeScalars.count) {
                    throw OperationError.invalid(field: name, "must be \(length.lowerBound) to \(length.upperBound) characters")
                }
                if let allowed, !allowed.contains(text) {
                    throw OperationError.invalid(field: name, "must be one of \(allowed.joined(separator: ", "))")
                }
                return JSONObjectBody.stringLiteral(text)
            case .integer:
                guard let value = Int64(text) else { throw OperationError.invalid(field: name, "must be a whole number") }
                if let range, !range.contains(value) {
                    throw OperationError.invalid(field: name, "must be from \(range.lowerBound) to \(range.upperBound)")
                }
                return Array("\(value)".utf8)
            case .boolean:
                guard text == "true" || text == "false" else { throw OperationError.invalid(field: name, "must be true or false") }
                return Array(text.utf8)
            }
        }
    }

    public var method: HTTPRequest.Method
    /// OpenAPI form: `/v1/items/{id}`.
    public var path: String
    public var service: String
    public var type: String
    public var summary: String
    public var access: Access
    public var parameters: [Parameter]
    /// JSON Schema of the body; nil for routes without one.
    public var requestBody: JSONValue?
    /// JSON Schema of the success body.
    public var response: JSONValue
    public var successStatus: HTTPResponse.Status
    /// The error codes this operation answers with besides those every route can give.
    public var errors: [ErrorCode]

    /// A route to `Op`.
    public init<Op: BusOperation>(
        _ method: HTTPRequest.Method, _ path: String, to operation: Op.Type, summary: String,
        access: Access = .anyone, parameters: [Parameter] = [], requestBody: JSONValue? = nil,
        response: JSONValue, successStatus: HTTPResponse.Status = .ok, errors: [ErrorCode] = []
    ) {
        self.method = method
        self.path = path
        self.service = Op.service
        self.type = Op.type
        self.summary = summary
        self.access = access
        self.parameters = parameters
        self.requestBody = requestBody
        self.response = response
        self.successStatus = successStatus
        self.errors = errors
    }

    /// Hummingbird form of `path`: `/v1/items/:id`.
    var routerPath: String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") ? ":" + segment.dropFirst().dropLast() : segment
        }.joined(separator: "/")
    }

    /// True for methods that change something: they carry an idempotency key.
    var isMutating: Bool { ![.get, .head, .options].contains(method) }

    /// Every error code this route can answer with, in a stable order.
    var possibleErrors: [ErrorCode] {
        var codes: Set<ErrorCode> = [.invalid, .internal, .unavailable, .deadlineExceeded, .notFound]
        if requestBody != nil { codes.insert(.tooLarge) }
        if access == .signedIn { codes.insert(.unauthenticated) }
        codes.formUnion(errors)
        return ErrorCode.allCases.filter(codes.contains)
    }
}
