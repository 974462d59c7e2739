/// A failed operation as it crosses the bus: `{code, message, fields}`.
///
/// Handlers throw it (or an error that converts to it); the gateway alone turns `code` into an HTTP
/// status. `message` is for people and never carries database or socket error text.
public struct OperationError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    /// One problem with one input field.
    public struct FieldIssue: Codable, Sendable, Equatable {
        /// The JSON path of the field, such as `data.items[2].name`.
        public var field: String
        public var message: String

        public init(field: String, message: String) {
            self.field = field
            self.message = message
        }
    }

    public var code: ErrorCode
    public var message: String
    public var fields: [FieldIssue]
    /// For `rate_limited` (and `unavailable`): whole seconds after which a retry may succeed.
    public var retryAfter: Int?
    /// For a `conflict` over a version: the thing as it is now, so the caller merges without another
    /// read. (Its numbers are versions, counts and bounded cents, exact in a JSON number.)
    public var current: JSONValue?

    public init(_ code: ErrorCode, _ message: String, fields: [FieldIssue] = [], retryAfter: Int? = nil, current: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.fields = fields
        self.retryAfter = retryAfter
        self.current = current
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // A code this build does not know (from a newer peer) still fails the call, as `internal`.
        code = ErrorCode(rawValue: try container.decode(String.self, forKey: .code)) ?? .internal
        message = try container.decode(String.self, forKey: .message)
        fields = try container.decodeIfPresent([FieldIssue].self, forKey: .fields) ?? []
        retryAfter = try container.decodeIfPresent(Int.self, forKey: .retryAfter)
        current = try container.decodeIfPresent(JSONValue.self, forKey: .current)
    }

    /// An `invalid` error naming one field.
    public static func invalid(field: String, _ message: String) -> OperationError {
        OperationError(.invalid, "\(field): \(message)", fields: [FieldIssue(field: field, message: message)])
    }

    /// A `conflict` over a version: `read` is not the version `thing` (the changed thing, as its GET
    /// answers) is at, which the error carries as `current` so the caller merges without another read.
    public static func staleVersion(of thing: some Encodable, read: Int, current: Int, _ what: String) -> OperationError {
        conflict(field: "data.version", "the \(what) changed since version \(read); it is at version \(current)", "is \(current) now", current: thing)
    }

    /// A `conflict` over what `field` says the caller read, carrying the thing as it is now as `current`.
    public static func conflict(field: String, _ message: String, _ fieldMessage: String, current thing: some Encodable) -> OperationError {
        OperationError(
            .conflict, "\(field): \(message)", fields: [FieldIssue(field: field, message: fieldMessage)],
            current: try? JSONValue.parse(EnvelopeCodec().encode(thing)))
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// An error a service can describe as an `OperationError` (each service's error enum conforms).
public protocol OperationErrorConvertible: Error {
    var operationError: OperationError { get }
}

extension OperationError: OperationErrorConvertible {
    public var operationError: OperationError { self }
}
