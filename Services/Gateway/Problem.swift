import Envelope
import Foundation
import HTTPTypes
import Hummingbird

/// An RFC 9457 problem document (`application/problem+json`), the body of every error response.
public struct Problem: Codable, Sendable, Equatable {
    /// One problem with one input: a body member (`items[2].name`), a path or query parameter, or a
    /// header.
    public struct Field: Codable, Sendable, Equatable {
        public var field: String
        public var message: String
    }

    /// `urn:melon:problem:<code>`: stable, and the same `code` as the bus error.
    public var type: String
    public var title: String
    public var status: Int
    public var detail: String
    /// The bus error code (`invalid`, `not_found`, ...), for clients that switch on it.
    public var code: String
    public var requestId: String
    public var fields: [Field]?
    /// For 429 (as the `Retry-After` header says too): seconds until a retry may succeed.
    public var retryAfter: Int?
    /// For 409 over a version: the thing as it is now.
    public var current: JSONValue?

    public static let mediaType = "application/problem+json"

    /// The problem for a bus error, field paths given relative to the request body (`data.` dropped).
    public init(_ error: OperationError, requestID: String) {
        let status = Self.status(for: error.code)
        self.init(status: status, code: error.code.rawValue, detail: Self.clientPaths(in: error.message), requestID: requestID,
                  fields: error.fields.map { Field(field: Self.clientPath($0.field), message: $0.message) })
        retryAfter = error.retryAfter
        current = error.current
    }

    public init(status: HTTPResponse.Status, code: String, detail: String, requestID: String, fields: [Field] = []) {
        type = "urn:melon:problem:\(code)"
        title = status.reasonPhrase
        self.status = status.code
        self.detail = detail
        self.code = code
        self.requestId = requestID
        self.fields = fields.isEmpty ? nil : fields
    }

    /// The only place a bus error code becomes an HTTP status (ARCHITECTURE.md, "The envelope").
    public static func status(for code: ErrorCode) -> HTTPResponse.Status {
        switch code {
        case .invalid: .badRequest
        case .unauthenticated: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .gone: .gone
        case .tooLarge: .contentTooLarge
        case .rateLimited: .tooManyRequests
        case .internal: .internalServerError
        case .unavailable: .serviceUnavailable
        case .deadlineExceeded: .gatewayTimeout
        }
    }

    /// `data.items[2].name` → `items[2].name`: services name fields within the envelope's `data`,
    /// which is the request body (plus path and query parameters) for the client.
    static func clientPath(_ field: String) -> String {
        if field == "data" { return "" }
        return field.hasPrefix("data.") ? String(field.dropFirst(5)) : field
    }

    /// `text` with every field path in it named as `fields` names it (`data.amount.minorUnits: ...`
    /// → `amount.minorUnits: ...`): a `data.` that starts a word, followed by a member's name.
    static func clientPaths(in text: String) -> String {
        guard text.contains("data.") else { return text }
        var out = "", rest = Substring(text)
        while let found = rest.range(of: "data.") {
            let before = rest[..<found.lowerBound], after = rest[found.upperBound...]
            let previous = before.last ?? out.last
            let startsWord = previous.map { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == ".") } ?? true
            let namesMember = after.first.map { $0.isLetter || $0 == "_" } ?? false
            out += before + (startsWord && namesMember ? "" : "data.")
            rest = after
        }
        return out + rest
    }

    /// The response carrying this problem.
    func response(headers extra: HTTPFields = [:]) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(self)) ?? Data()
        var headers: HTTPFields = [.contentType: Self.mediaType]
        headers.append(contentsOf: extra)
        return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
