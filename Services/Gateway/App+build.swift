import Bus
import Contracts
import Envelope
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceSupport

/// Builds the gateway: the platform endpoints, one forwarder per HTTP route of `services`, the live
/// streams' WebSockets (fed by `live`'s subscriber, when given), and the middleware every request
/// passes (CORS, then ids, errors as problems, logs and metrics). The `gateway` and `melon`
/// executables and the tests all call this.
public func buildApplication(
    configuration: GatewayConfiguration,
    services: [any ServiceContract.Type],
    bus: BusClient,
    authenticator: (any RequestAuthenticator)? = nil,
    live: LiveSockets? = nil,
    readinessChecks: [(name: String, check: HealthServer.Check)] = [],
    version: String = "1.0.0",
    logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let routes = BusRoute.all(services)
    // The live streams the document shows are always served; without a feed of live events (`live`
    // from the process's settings) a socket catches up on its renewals only.
    let live = live ?? LiveSockets(services: services, bus: bus, subscriber: nil, authenticator: authenticator, logger: logger)
    let availability = ServiceAvailability(bus: bus, ttl: configuration.availabilityCacheTTL)
    let router = Router(context: GatewayRequestContext.self)
    router.add(middleware: CORSPolicy(allowedOrigins: configuration.corsAllowedOrigins))
    router.add(middleware: EdgeMiddleware(routes: routes, probes: configuration.probesOnPublicPort, liveStreams: live.streams.keys.sorted()))

    let document = OpenAPIDocument.make(
        services: services, routes: routes, version: version, deadlines: configuration.minDeadline...configuration.maxDeadline
    ).encoded()
    let routedServices = BusRoute.services(of: routes)
    if configuration.probesOnPublicPort {
        router.get("/healthz") { _, _ in json(#"{"status":"ok"}"#) }
        router.get("/readyz") { _, _ in
            await readiness(services: routedServices, checks: readinessChecks, availability: availability, timeout: configuration.readinessTimeout)
        }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                     body: .init(byteBuffer: ByteBuffer(string: Observability.prometheusText())))
        }
    }
    router.get("/openapi.json") { _, _ in
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: document)))
    }
    for route in routes {
        router.on(RouterPath(route.routerPath), method: route.method, responder: BusForwarder(
            route: route, bus: bus, availability: availability, authenticator: authenticator, configuration: configuration))
    }

    let http1 = HTTP1Channel.Configuration(idleTimeout: .milliseconds(configuration.idleTimeout.milliseconds))
    var server = HTTPServerBuilder.http1(configuration: http1)
    if !live.streams.isEmpty {
        // A stream's path that is not upgraded is answered with why (no token, a bad cursor, no Upgrade).
        router.get("/v1/live/{stream}") { request, _ in try await live.answer(request) }
        server = .http1WebSocketUpgrade(configuration: .init(http1: http1, ws: .init(maxFrameSize: 1 << 16))) { head, _, logger in
            await live.shouldUpgrade(head, logger: logger)
        }
    }
    return Application(
        router: router,
        server: server,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
        services: [bus] + (authenticator?.services ?? []) + [live],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
}

/// The OpenAPI 3.1 document of `services`' routes as a gateway with `configuration` serves it at
/// `/openapi.json`: `melon openapi` prints it and docs/openapi.json holds it.
public func openAPIDocument(services: [any ServiceContract.Type], configuration: GatewayConfiguration, version: String = "1.0.0") -> JSONValue {
    OpenAPIDocument.make(
        services: services, routes: BusRoute.all(services), version: version,
        deadlines: configuration.minDeadline...configuration.maxDeadline)
}

/// The gateway's readiness as checks for its health port (HEALTH_PORT): the broker answers, and each
/// service the routes use has a worker.
public func gatewayReadinessChecks(
    services: [any ServiceContract.Type], bus: BusClient, configuration: GatewayConfiguration
) -> [(name: String, check: HealthServer.Check)] {
    let availability = ServiceAvailability(bus: bus, ttl: configuration.availabilityCacheTTL)
    let timeout = configuration.readinessTimeout
    let broker: HealthServer.Check = { await availability.brokerAnswers(timeout: timeout) }
    return [("broker", broker)] + BusRoute.services(of: BusRoute.all(services)).map { service in
        (service, { await availability.hasWorker(service, timeout: timeout) })
    }
}

private func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
}

/// 200 when the broker answers, every service the routes use has a worker and every extra check
/// passes, else 503; the body says which part is missing.
private func readiness(
    services: [String], checks: [(name: String, check: HealthServer.Check)], availability: ServiceAvailability, timeout: Duration
) async -> Response {
    let brokerUp = await availability.brokerAnswers(timeout: timeout)
    var states: [(String, Bool)] = []
    for service in services { states.append((service, await availability.hasWorker(service, timeout: timeout))) }
    var results: [(String, Bool)] = []
    for (name, check) in checks { results.append((name, await check())) }
    let ready = brokerUp && states.allSatisfy(\.1) && results.allSatisfy(\.1)
    let members = { (pairs: [(String, Bool)]) in pairs.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") }
    let extra = checks.isEmpty ? "" : #","checks":{\#(members(results))}"#
    return json(#"{"status":"\#(ready ? "ready" : "unready")","broker":\#(brokerUp),"services":{\#(members(states))}\#(extra)}"#,
                status: ready ? .ok : .serviceUnavailable)
}
