import Bus
import Contracts
import Envelope
import Foundation
import HTTPTypes
import Hummingbird

/// Serves one `BusRoute`: turns the HTTP request into the operation's `data` (path and query
/// parameters, then the JSON body), calls the operation over the bus with the request's deadline,
/// trace, idempotency key and caller, and answers with its result.
struct BusForwarder: HTTPResponder {
    typealias Context = GatewayRequestContext

    let route: BusRoute
    let bus: BusClient
    let availability: ServiceAvailability
    let authenticator: (any RequestAuthenticator)?
    let configuration: GatewayConfiguration

    func respond(to request: Request, context: Context) async throws -> Response {
        let caller = try await authenticate(request)
        var options = CallOptions()
        options.deadline = try deadline(request)
        options.traceParent = context.traceParent
        options.idempotencyKey = try idempotencyKey(request, context: context)
        options.authType = caller?.type
        options.authID = caller?.id
        options.authClaims = caller?.claims
        options.clientIP = ClientAddress.resolve(
            peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[values: .xForwardedFor],
            trustedProxies: configuration.trustedProxies)

        let data = try await self.data(request, context: context)
        try await availability.require(route.service)
        let result = try await bus.call(service: route.service, type: route.type, data: data, options: options)
        let body = try result.get()
        if let file = route.file { return try fileResponse(body, file, request: request) }
        return Response(status: route.successStatus, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The reply's file member as the body, with its media type and, when the reply names them, the
    /// file name to save it under and its entity tag: 304 without it when If-None-Match names the
    /// tag, one byte range of it (206) when Range asks for one (and If-Range, if sent, names the tag).
    private func fileResponse(_ body: [UInt8], _ file: HTTPBinding.FileReply, request: Request) throws -> Response {
        let reply = try JSONValue.parse(body)
        var headers: HTTPFields = [.cacheControl: file.cacheControl, .acceptRanges: "bytes"]
        var tag: String?
        if let member = file.etag, case .string(let value)? = reply[member] {
            tag = value
            headers[.eTag] = value
            if let ifNoneMatch = request.headers[.ifNoneMatch], HTTPBinding.FileReply.matches(ifNoneMatch: ifNoneMatch, etag: value) {
                return Response(status: .notModified, headers: headers)
            }
        }
        guard case .string(let base64)? = reply[file.content], let bytes = Data(base64Encoded: base64) else {
            throw OperationError(.internal, "the reply has no file in \(file.content)")
        }
        headers[.contentType] = file.mediaType
        if let member = file.mediaTypeMember, case .string(let type)? = reply[member] {
            guard type.wholeMatch(of: /[a-z]+\/[a-z0-9.+-]+/) != nil else { throw OperationError(.internal, "the reply's media type is not one") }
            headers[.contentType] = type
        }
        if let member = file.fileName, case .string(let name)? = reply[member] {
            let safe = name.filter { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
            headers[.contentDisposition] = "attachment; filename=\"\(safe)\""
        }
        let ifRange = request.headers[.ifRange]
        let asked = ifRange == nil || ifRange == tag ? request.headers[.range] : nil
        switch asked.map({ ByteRange(header: $0, length: bytes.count) }) ?? .whole {
        case .whole:
            return Response(status: route.successStatus, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        case .partial(let range):
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(bytes.count)"
            return Response(status: .partialContent, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes[range])))
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(bytes.count)"
            headers[.contentType] = nil
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
    }

    private func authenticate(_ request: Request) async throws -> AuthenticatedCaller? {
        guard route.access.needsToken else { return nil }
        guard let authenticator, let caller = try await authenticator.authenticate(request) else {
            throw OperationError(.unauthenticated, "this route needs a valid access token in the Authorization header")
        }
        // Before the bus: a session of another app never reaches the service, whatever it names.
        guard route.apps.allows(caller.app) else { throw route.apps.refusal(of: caller.app) }
        return caller
    }

    private func deadline(_ request: Request) throws(OperationError) -> Date {
        var timeout = configuration.defaultDeadline
        if let text = request.headers[.requestTimeout] {
            let limit = configuration.maxDeadline.milliseconds
            let least = configuration.minDeadline.milliseconds
            guard let milliseconds = Int64(text), (least...limit).contains(milliseconds) else {
                throw OperationError.invalid(
                    field: "X-Request-Timeout-Ms",
                    "must be a whole number of milliseconds from \(least) to \(limit)")
            }
            timeout = .milliseconds(milliseconds)
        }
        return Date().adding(timeout)
    }

    /// The client's `Idempotency-Key`; for a mutating request without one, a key of its own, so the
    /// broker's re-dispatch after a worker dies still cannot act twice (unless the route requires
    /// the client's own: then `invalid`). Not the request id, which the logs hold: the key opens the
    /// stored reply (`IdempotencyRecord`).
    private func idempotencyKey(_ request: Request, context: Context) throws(OperationError) -> String? {
        if let key = request.headers[.idempotencyKey] { return try IdempotencyKey.checked(key, field: "Idempotency-Key") }
        if route.requiresIdempotencyKey {
            throw OperationError.invalid(field: "Idempotency-Key", "is required here: send a new key per request, and the same key when you repeat it")
        }
        return route.isMutating ? UUID().uuidString : nil
    }

    /// The operation's `data`: parameters as typed JSON members, then the body's members, checked
    /// against the operation's schema so that a request the service would refuse for its shape never
    /// reaches the bus.
    private func data(_ request: Request, context: Context) async throws -> [UInt8] {
        let data = try await members(request, context: context)
        guard let value = try? JSONValue.parse(data) else {
            throw OperationError(.invalid, "the body has a value JSON numbers cannot hold", fields: [.init(field: "body", message: "has a number out of range")])
        }
        var validation = Validation()
        for problem in route.requestSchema.problems(value, at: "data") { validation.fail(problem.field, problem.message) }
        try validation.finish()
        return data
    }

    private func members(_ request: Request, context: Context) async throws -> [UInt8] {
        var members: [(key: String, json: [UInt8])] = []
        for parameter in route.parameters {
            let value: String? = switch parameter.location {
            // The router hands path segments over as sent, percent-encoded.
            case .path: try context.parameters.get(parameter.name).map { raw throws(OperationError) in
                guard let decoded = raw.removingPercentEncoding else {
                    throw OperationError.invalid(field: parameter.name, "is not valid percent-encoded UTF-8")
                }
                return decoded
            }
            case .query: request.uri.queryParameters.get(parameter.name)
            }
            guard let value else {
                if parameter.required { throw OperationError.invalid(field: parameter.name, "is required") }
                continue
            }
            members.append((parameter.name, try parameter.json(value)))
        }
        if let member = route.file?.ifNoneMatch, let tags = request.headers[.ifNoneMatch], tags.utf8.count <= HTTPBinding.FileReply.ifNoneMatchBytes {
            members.append((member, JSONObjectBody.stringLiteral(tags)))
        }
        if let upload = route.upload { return try await uploaded(request, upload, members) }
        guard route.body != nil else { return JSONObjectBody.object(members) }

        if let type = request.headers[.contentType], !type.lowercased().hasPrefix("application/json") {
            throw GatewayHTTPError(status: .unsupportedMediaType, code: "unsupported_media_type",
                                   detail: "send the body as application/json, not \(type)")
        }
        var request = request
        let buffer = try await request.collectBody(upTo: configuration.maxBodyBytes)
        guard String(validating: buffer.readableBytesView, as: UTF8.self) != nil else {
            throw OperationError(.invalid, "the body is not UTF-8: JSON is sent as UTF-8 text", fields: [.init(field: "body", message: "is not UTF-8")])
        }
        let body: JSONObjectBody
        do {
            body = try JSONObjectBody(parsing: Array(buffer.readableBytesView))
        } catch {
            throw OperationError(.invalid, error.description, fields: [.init(field: "body", message: error.description)])
        }
        for (key, _) in members where body.keys.contains(key) {
            throw OperationError.invalid(field: key, "is given in the path or query; leave it out of the body")
        }
        return body.merged(with: members)
    }

    /// A file sent as the body: its bytes (base64) and its media type join the parameters.
    private func uploaded(_ request: Request, _ upload: HTTPBinding.FileUpload, _ members: [(key: String, json: [UInt8])]) async throws -> [UInt8] {
        let type = request.headers[.contentType]?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let type, upload.mediaTypes.contains(type) else {
            throw GatewayHTTPError(status: .unsupportedMediaType, code: "unsupported_media_type",
                                   detail: "send the file as itself, with Content-Type \(upload.mediaTypes.joined(separator: ", ")); not \(type ?? "none")")
        }
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: upload.maxBytes)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw OperationError(.tooLarge, "the file is larger than \(upload.maxBytes) bytes",
                                 fields: [.init(field: upload.content, message: "must be at most \(upload.maxBytes) bytes")])
        }
        let content = Data(buffer.readableBytesView).base64EncodedString()
        let headers = upload.headers.sorted { $0.key < $1.key }.compactMap { name, member in
            HTTPField.Name(name).flatMap { request.headers[$0] }.map { (member, JSONObjectBody.stringLiteral($0)) }
        }
        return JSONObjectBody.object(
            members + [(upload.content, JSONObjectBody.stringLiteral(content)), (upload.mediaType, JSONObjectBody.stringLiteral(type))] + headers)
    }
}
