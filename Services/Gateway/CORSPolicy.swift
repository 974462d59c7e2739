import HTTPTypes
import Hummingbird

/// CORS for a configured list of origins (or any): requests from a listed origin go through
/// Hummingbird's CORSMiddleware, which answers preflights and adds the headers; others get no CORS
/// headers, so browsers keep the response from the page.
struct CORSPolicy: RouterMiddleware {
    typealias Context = GatewayRequestContext

    private let origins: Set<String>
    private let allowsAny: Bool
    private let cors: CORSMiddleware<Context>

    init(allowedOrigins: [String]) {
        allowsAny = allowedOrigins.contains("*")
        origins = Set(allowedOrigins)
        cors = CORSMiddleware(
            allowOrigin: allowsAny ? .all : .originBased,
            allowHeaders: [.accept, .authorization, .contentType, .origin, .requestID, .traceParent, .idempotencyKey, .requestTimeout],
            allowMethods: [.get, .post, .put, .patch, .delete, .head, .options],
            exposedHeaders: ["X-Request-Id", "traceparent", "Retry-After"],
            maxAge: .seconds(600))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard allowsAny || request.headers[.origin].map(origins.contains) == true else {
            return try await next(request, context)
        }
        return try await cors.handle(request, context: context, next: next)
    }
}
