import AuthService
import Bus
import Envelope
import Foundation
import GatewayService
import PdfEmailService
import Logging
import PostgresSupport
import RefundCalculatorService
import ServiceKit
import ServiceLifecycle
import ServiceSupport
import TaxFormService
import Synchronization
import ZeroMQ

/// `http-benchmark`: requests per second and p50/p99 for a small read and a small write through the
/// whole path (HTTP, gateway, broker, worker, PostgreSQL), measured by wrk, beside the same handlers
/// called in-process without HTTP or the bus, in the same run. Run it with deploy/bench-http.sh.
///
///   http-benchmark [--runs 3] [--duration 10] [--connections 32] [--only SERIES[,SERIES...]]   (DATABASE_URL must be set)
@main
struct HTTPBenchmark {
    static func main() async throws {
        let options = Options(CommandLine.arguments)
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"] else {
            FileHandle.standardError.write(Data("set DATABASE_URL (deploy/bench-http.sh starts a private PostgreSQL)\n".utf8))
            exit(64)
        }
        Observability.bootstrapLogging(format: "text", level: .warning)
        Observability.bootstrapMetrics()
        let logger = Logger(label: "http-benchmark")
        let heartbeat = Heartbeat(interval: .seconds(1), liveness: 3)
        // As `melon` runs: one libzmq context for every part, the bus over inproc.
        let context = try ZMQContext()
        let broker = try Broker(configuration: BrokerConfiguration(
            endpoint: "inproc://http-benchmark", eventsEndpoint: nil, eventsPublishEndpoint: nil, heartbeat: heartbeat), context: context, logger: logger)
        let database = try Database(url: DatabaseURL(url), schema: "bench", maximumConnections: options.connections, logger: logger)
        let worker = try WorkerRuntime(
            registry: BenchNotes.registry(database),
            configuration: WorkerConfiguration(endpoint: broker.endpoint, workers: options.connections, heartbeat: heartbeat, gracePeriod: .seconds(5)),
            context: context, logger: logger)
        let bus = try BusClient(configuration: ClientConfiguration(endpoint: broker.endpoint, processName: "bench-gateway"), context: context, logger: logger)
        // The auth service and the refund calculator, as their own processes would run them.
        let settings = ProcessSettings(
            process: "http-benchmark", settings: [], arguments: [],
            environment: [
                "BROKER_ENDPOINT": broker.endpoint, "EVENTS_PUBLISH_ENDPOINT": "", "DATABASE_URL": url, "WORKERS": "\(options.connections)",
                "AUTH_KEY_ENCRYPTION_KEY": Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(),
                "REFUND_CONTACT_EMAIL": "refunds@bench.example",
                "TAX_FORM_KEY": Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(),
                "MAIL_SPOOL_DIR": FileManager.default.temporaryDirectory.appendingPathComponent("melon-bench-mail-\(UUID().uuidString)").path,
            ])
        let auth = try RunningService(.auth, settings: settings, logger: logger, maximumConnections: options.connections, context: context)
        let refunds = try RunningService(.refundCalculator, settings: settings, logger: logger, maximumConnections: 4, context: context)
        let taxForm = try RunningService(.taxForm, settings: settings, logger: logger, maximumConnections: 8, context: context)
        // pdf-email fills the return's PDF (and takes auth's queued mail into a spool folder).
        let pdfEmail = try RunningService(.pdfEmail, settings: settings, logger: logger, maximumConnections: 4, context: context)
        let authDatabase = auth.database!
        let port = Mutex<Int?>(nil)
        let gatewaySettings = ProcessSettings.declared(
            Setting.gatewaySettings, process: "gateway", environment: ["HTTP_PORT": "0", "EVENTS_ENDPOINT": "", "BUS_CURVE": "off"])
        let gateway = buildApplication(
            // Routes of the services this process runs only: readiness waits for a worker of every routed service.
            configuration: try gatewaySettings.gatewayConfiguration(),
            services: [BenchNotes.self] + [ServiceDefinition.auth, .refundCalculator, .taxForm, .pdfEmail].map(\.contract), bus: bus,
            authenticator: try gatewaySettings.tokenAuthenticator(bus: bus, logger: logger),
            logger: logger,
            onServerRunning: { bound in port.withLock { $0 = bound } })
        let group = Mutex<ServiceGroup?>(nil)
        let measurement = Measurement(options: options, database: database, authDatabase: authDatabase, bus: bus, port: { port.withLock { $0 } }) {
            await group.withLock { $0 }?.triggerGracefulShutdown()
        }
        let services = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: ([database, broker, worker] + auth.services + refunds.services + taxForm.services + pdfEmail.services + [gateway] as [any Service])
                .map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }
                + [ServiceGroupConfiguration.ServiceConfiguration(service: measurement, successTerminationBehavior: .ignore)],
            logger: logger))
        group.withLock { $0 = services }
        try await services.run()
    }
}

/// Command-line options.
struct Options: Sendable {
    var runs = 3
    var duration = 10
    var connections = 32
    /// Runs only the series whose name contains one of these (for perf: one series, nothing else in
    /// the profile; or two, to see whether one slows the other).
    var only: [String]?

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let flag = iterator.next() {
            if flag == "--only" {
                only = iterator.next()?.split(separator: ",").map(String.init)
                continue
            }
            let value = iterator.next().flatMap(Int.init) ?? 0
            switch flag {
            case "--runs": runs = max(1, value)
            case "--duration": duration = max(1, value)
            case "--connections": connections = max(1, value)
            default: FileHandle.standardError.write(Data("unknown option \(flag)\n".utf8)); exit(64)
            }
        }
    }

    func wants(_ series: String) -> Bool { only.map { $0.contains(where: series.contains) } ?? true }
}
