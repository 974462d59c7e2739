import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import NotificationsContract
import Synchronization

/// APNs over HTTP/2 with token-based authentication. One `HTTPClient` keeps its connections to each
/// host open and multiplexes requests over them; a connection APNs closes (GOAWAY) is replaced.
public final class APNsHTTP2Provider: PushProvider {
    /// Made at the first push (an `HTTPClient` must be shut down, and a process may stop before it sends).
    private let client = Mutex<HTTPClient?>(nil)
    private let http: HTTPClient.Configuration
    private let token: APNsProviderToken
    private let configuration: APNsConfiguration
    private let logger: Logger

    public init(configuration: APNsConfiguration, token: APNsProviderToken, logger: Logger) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = configuration.caFile { tls.trustRoots = .file(caFile) }
        var http = HTTPClient.Configuration(tlsConfiguration: tls)
        http.httpVersion = .automatic
        // Apple asks providers to keep connections open rather than open one per push.
        http.connectionPool = .init(idleTimeout: .seconds(3_600))
        // A host that refuses the connection fails its requests at once (the delivery loop backs off
        // from it) instead of holding them while the pool tries again until the connect timeout.
        http.connectionPool.retryConnectionEstablishment = false
        http.timeout = .init(connect: .milliseconds(configuration.timeout.milliseconds), read: .milliseconds(configuration.timeout.milliseconds))
        self.http = http
        self.token = token
        self.configuration = configuration
        self.logger = logger
    }

    public func send(_ request: APNsRequest, environment: Notifications.Devices.Environment) async -> ProviderReply {
        let base = environment == .production ? configuration.productionURL : configuration.sandboxURL
        var renewed = false, reloaded = false
        while true {
            // The token comes from the database: its failure is not the host's.
            let jwt: String
            do {
                jwt = try await token.token()
            } catch {
                return ProviderReply(verdict: .retry(reason: "no provider token: \(String(describing: error))"))
            }
            let reply: ProviderReply
            do {
                reply = try await post(request, to: base, jwt: jwt)
            } catch {
                return ProviderReply(verdict: .retry(reason: "APNs unreachable: \(String(describing: error))"), answered: false)
            }
            do {
                if reply.verdict == .tooManyTokenUpdates, !reloaded {
                    // Another instance may have renewed the shared token a moment before: present that one.
                    reloaded = true
                    if try await token.reload(refused: jwt) != jwt { continue }
                    return reply
                }
                if reply.verdict == .renewProviderToken {
                    guard !renewed else {
                        return ProviderReply(
                            verdict: .setupError(reason: "ExpiredProviderToken right after a renewal: is this machine's clock right?"),
                            hostEnvironment: reply.hostEnvironment, apnsID: reply.apnsID)
                    }
                    logger.notice("APNs said the provider token expired: renewing it")
                    _ = try await token.renew(replacing: jwt)
                    renewed = true
                    continue
                }
            } catch {
                return ProviderReply(verdict: .retry(reason: "no provider token: \(String(describing: error))"))
            }
            return reply
        }
    }

    private func post(_ request: APNsRequest, to base: String, jwt: String) async throws -> ProviderReply {
        var http = HTTPClientRequest(url: base + request.path)
        http.method = .POST
        http.headers.add(name: "authorization", value: "bearer \(jwt)")
        for (name, value) in request.headers { http.headers.add(name: name, value: value) }
        http.headers.add(name: "content-type", value: "application/json")
        http.body = .bytes(ByteBuffer(bytes: request.payload))
        let response = try await connections().execute(http, timeout: .milliseconds(configuration.timeout.milliseconds))
        let body = try await response.body.collect(upTo: 16 * 1024)
        let status = Int(response.status.code)
        var reason: String?, timestamp: Int64?
        if body.readableBytes > 0, let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] {
            reason = object["reason"] as? String
            timestamp = (object["timestamp"] as? NSNumber)?.int64Value
        }
        return ProviderReply(
            verdict: APNsVerdict.of(status: status, reason: reason, timestamp: timestamp), hostEnvironment: Self.environment(ofHostIn: base),
            apnsID: response.headers.first(name: "apns-id"), uniqueID: response.headers.first(name: "apns-unique-id"))
    }

    /// Apple's hosts say which environment they serve; other hosts (a proxy, the tests' server) are
    /// taken to serve the environment they are configured for.
    static func environment(ofHostIn url: String) -> Notifications.Devices.Environment? {
        switch URLComponents(string: url)?.host {
        case "api.push.apple.com"?: .production
        case "api.sandbox.push.apple.com"?, "api.development.push.apple.com"?: .sandbox
        default: nil
        }
    }

    private func connections() -> HTTPClient {
        client.withLock { client in
            if let client { return client }
            let made = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
            client = made
            return made
        }
    }

    /// Closes the connections, waiting at most a second: a connection still being made to a host
    /// that does not answer would hold shutdown until its connect timeout (it closes on its own then).
    public func shutdown() async {
        let client = client.withLock { client in
            defer { client = nil }
            return client
        }
        guard let client else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed = Mutex(false)
            let resume: @Sendable () -> Void = {
                let first = resumed.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume() }
            }
            Task {
                try? await client.shutdown()
                resume()
            }
            Task {
                try? await Task.sleep(for: .seconds(1))
                resume()
            }
        }
    }
}
