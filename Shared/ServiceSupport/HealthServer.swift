import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The probe endpoints of a process that has no HTTP API of its own (the broker, each service):
/// `GET /healthz` (the process runs), `GET /readyz` (every readiness check passes) and `GET /metrics`
/// (Prometheus text). The gateway serves the same paths from its own router.
public final class HealthServer: Service {
    /// One named readiness check; false means "do not send me traffic yet".
    public typealias Check = @Sendable () async -> Bool

    private let host: String
    private let port: Int
    private let checks: [(name: String, check: Check)]
    private let logger: Logger
    private let onBound: @Sendable (Int) -> Void

    /// - Parameter onBound: called with the bound port (useful with port 0).
    public init(host: String, port: Int, checks: [(name: String, check: Check)] = [], logger: Logger,
                onBound: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.host = host
        self.port = port
        self.checks = checks
        self.logger = logger
        self.onBound = onBound
    }

    public func run() async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(wrappingChannelSynchronously: channel)
                }
            }
        let boundPort = server.channel.localAddress?.port ?? port
        onBound(boundPort)
        logger.info("health endpoints listening", metadata: ["port": "\(boundPort)"])
        // Probes are short; cancelling at shutdown ends the listener and any connection still open.
        try? await cancelWhenGracefulShutdown {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask { await self.serve(connection) }
                    }
                }
            }
        }
    }

    private func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                for try await part in inbound {
                    switch part {
                    case .head(let request): head = request
                    case .body: continue
                    case .end:
                        guard let request = head else { continue }
                        let (status, contentType, body) = await respond(to: request)
                        // One request per connection: nothing idles open to hold up shutdown.
                        let headers = HTTPHeaders([
                            ("content-type", contentType), ("content-length", "\(body.utf8.count)"), ("connection", "close"),
                        ])
                        try await outbound.write(.head(HTTPResponseHead(version: request.version, status: status, headers: headers)))
                        try await outbound.write(.body(.byteBuffer(ByteBuffer(string: body))))
                        try await outbound.write(.end(nil))
                        return
                    }
                }
            }
        } catch {
            logger.debug("health connection ended", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    private func respond(to request: HTTPRequestHead) async -> (HTTPResponseStatus, String, String) {
        guard request.method == .GET || request.method == .HEAD else {
            return (.methodNotAllowed, "text/plain", "GET only\n")
        }
        switch request.uri.split(separator: "?").first ?? "" {
        case "/healthz":
            return (.ok, "application/json", #"{"status":"ok"}"#)
        case "/readyz":
            var failing: [String] = []
            for (name, check) in checks where await !check() { failing.append(name) }
            let list = failing.map { "\"\($0)\"" }.joined(separator: ",")
            return failing.isEmpty
                ? (.ok, "application/json", #"{"status":"ready"}"#)
                : (.serviceUnavailable, "application/json", #"{"status":"unready","failing":[\#(list)]}"#)
        case "/metrics":
            return (.ok, "text/plain; version=0.0.4", Observability.prometheusText())
        default:
            return (.notFound, "text/plain", "not found\n")
        }
    }
}
