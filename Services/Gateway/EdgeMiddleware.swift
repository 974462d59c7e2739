import Bus
import Envelope
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore

/// The outermost layer of every request: gives it a request id and a trace span, turns any error into
/// a problem response, stamps both ids on the response, and logs and counts it. Every response says
/// `Cache-Control: no-store` (replies carry tokens and personal data, which no cache may keep) and
/// `X-Content-Type-Options: nosniff`.
struct EdgeMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    /// Each route's path segments and method, to tell "no such path" (404) from "not this method" (405).
    private let templates: [(segments: [Substring], method: HTTPRequest.Method)]

    init(routes: [BusRoute], probes: Bool, liveStreams: [String] = []) {
        templates = routes.map { ($0.path.split(separator: "/"), $0.method) }
            + (OpenAPIDocument.platformPaths(probes: probes) + liveStreams.map { "/v1/live/\($0)" }).map { ($0.split(separator: "/"), .get) }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        var context = context
        context.requestID = request.headers[.requestID].flatMap(Self.usableRequestID) ?? RandomID.uuid()
        context.traceParent = request.headers[.traceParent].flatMap(TraceParent.init)?.child() ?? .random()
        context.logger[metadataKey: "request_id"] = .string(context.requestID)
        context.logger[metadataKey: "trace_id"] = .string(context.traceParent.traceID)

        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            let (problem, headers) = problem(for: error, request: request, context: context)
            response = problem.response(headers: headers)
        }
        response.headers[.requestID] = context.requestID
        response.headers[.traceParent] = context.traceParent.description
        // No cache keeps an answer unless its route says how (a file's own Cache-Control).
        if response.headers[.cacheControl] == nil || response.status.code >= 400 { response.headers[.cacheControl] = "no-store" }
        response.headers[.xContentTypeOptions] = "nosniff"

        let route = context.endpointPath ?? "unmatched"
        let elapsed = ContinuousClock.now - started
        let dimensions = [("method", request.method.rawValue), ("route", route), ("status", "\(response.status.code)")]
        Counter(label: "melon_gateway_http_requests_total", dimensions: dimensions).increment()
        Timer(label: "melon_gateway_http_request_duration_seconds", dimensions: [("route", route)]).recordInterval(since: started)
        context.logger.log(
            level: response.status.code >= 500 ? .warning : .info, "request",
            metadata: ["method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(response.status.code)",
                       "ms": "\(elapsed.milliseconds)"])
        return response
    }

    /// The problem document for `error`, with the headers that belong to it.
    private func problem(for error: any Error, request: Request, context: Context) -> (Problem, HTTPFields) {
        let id = context.requestID
        switch error {
        case let error as any OperationErrorConvertible:
            let error = error.operationError
            let headers: HTTPFields = switch error.code {
            case .unavailable: [.retryAfter: "\(error.retryAfter ?? 1)"]
            case .rateLimited: [.retryAfter: "\(error.retryAfter ?? 1)"]
            case .unauthenticated: [.wwwAuthenticate: "Bearer"]
            default: [:]
            }
            return (Problem(error, requestID: id), headers)
        case is NIOTooManyBytesError:
            return (Problem(status: .contentTooLarge, code: ErrorCode.tooLarge.rawValue, detail: "the request body is larger than the limit", requestID: id), [:])
        case let error as HTTPError where error.status == .notFound:
            // The router says 404 for a known path with another method too: tell the two apart.
            let allowed = allowedMethods(request.uri.path).map(\.rawValue).joined(separator: ", ")
            guard !allowed.isEmpty else {
                return (Problem(status: .notFound, code: ErrorCode.notFound.rawValue, detail: "no route for \(request.method) \(request.uri.path)", requestID: id), [:])
            }
            return (Problem(status: .methodNotAllowed, code: "method_not_allowed",
                            detail: "\(request.uri.path) accepts \(allowed), not \(request.method)", requestID: id), [.allow: allowed])
        case let error as GatewayHTTPError:
            return (Problem(status: error.status, code: error.code, detail: error.detail, requestID: id), [:])
        case let error as HTTPError:
            return (Problem(status: error.status, code: "http_\(error.status.code)", detail: error.body ?? error.status.reasonPhrase, requestID: id), [:])
        default:
            context.logger.error("unexpected error", metadata: ["error": "\(String(reflecting: error))"])
            return (Problem(status: .internalServerError, code: ErrorCode.internal.rawValue,
                            detail: "the gateway failed; the request id identifies it in our logs", requestID: id), [:])
        }
    }

    /// The methods routes accept at `path` (empty when no route has that path). As the router does,
    /// a segment that matches a route's literal segment goes there and never to a parameter, so
    /// `/v1/households/join` has only the methods of its own route, not those of `/v1/households/{id}`.
    func allowedMethods(_ path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/")
        var candidates = templates.filter { $0.segments.count == segments.count }
        for (index, segment) in segments.enumerated() {
            let literal = candidates.filter { $0.segments[index] == segment }
            candidates = literal.isEmpty ? candidates.filter { $0.segments[index].hasPrefix("{") } : literal
        }
        return candidates.map(\.method)
    }

    /// Client ids are echoed in logs and headers: accept 1-128 characters of a safe alphabet only.
    static func usableRequestID(_ value: String) -> String? {
        guard (1...128).contains(value.utf8.count),
              value.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") })
        else { return nil }
        return value
    }
}

/// A failure of the HTTP exchange itself (not of a bus operation), such as an unsupported media type.
struct GatewayHTTPError: Error {
    var status: HTTPResponse.Status
    var code: String
    var detail: String
}

extension HTTPField.Name {
    static let requestID = HTTPField.Name("X-Request-Id")!
    static let traceParent = HTTPField.Name("traceparent")!
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    static let requestTimeout = HTTPField.Name("X-Request-Timeout-Ms")!
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}

extension UInt8 {
    var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
