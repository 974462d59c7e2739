import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization

/// Signs requests in: the generated client leaves the `bearer` scheme to a middleware, so an app
/// keeps its current access token here and every request carries it.
final class BearerToken: ClientMiddleware {
    private let token = Mutex<String?>(nil)

    func set(_ value: String) { token.withLock { $0 = value } }

    /// The access token requests carry now.
    var current: String? { token.withLock { $0 } }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token = token.withLock({ $0 }) { request.headerFields[.authorization] = "Bearer \(token)" }
        return try await next(request, body, baseURL)
    }
}
