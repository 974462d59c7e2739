import AuthService
import Bus
import GatewayService
import PdfEmailService
import PostgresSupport
import RefundCalculatorService
import ServiceCatalog
import ServiceSupport

/// `melon`: the broker, every service and the gateway in one process, the local default and the
/// shape for small installs. The parts still talk over the bus (ZeroMQ over TCP on loopback), so
/// they behave exactly as when they run as separate processes.
@main
struct MelonApp {
    static func main() async throws {
        var settings: [Setting] = []
        for setting in Setting.brokerSettings + Setting.gatewaySettings + [.workers, .gracePeriod] + Setting.pdfEmailSettings + Setting.authSettings
            + Setting.refundCalculatorSettings
        where setting != .healthPort && setting != .healthHost && !settings.contains(setting) {
            settings.append(setting)
        }
        let (process, logger) = ProcessBootstrap.start(
            process: "melon", summary: "runs the broker, every service and the gateway in one process.", settings: settings)
        func require<T>(_ read: () throws -> T) -> T { ProcessBootstrap.require(read, process: "melon") }

        let broker = require { try Broker(configuration: process.brokerConfiguration(), logger: logger) }
        let bus = require { try BusClient(configuration: process.clientConfiguration(), logger: logger) }
        let worker = require(process.workerConfiguration)
        let pdfEmail = require {
            try PdfEmailWorker(
                configuration: process.pdfEmailConfiguration(), worker: worker,
                database: Database(
                    url: DatabaseURL(process.databaseURL(service: "pdf-email")), schema: PdfEmailWorker.schema, maximumConnections: 4,
                    logger: logger),
                logger: logger)
        }
        // The auth service's own client (its outbox and calls), as when it runs as its own process.
        let authBus = require { try BusClient(configuration: process.clientConfiguration(), logger: logger) }
        let auth = require {
            try AuthWorker(
                configuration: process.authConfiguration(), worker: worker,
                database: Database(
                    url: DatabaseURL(process.databaseURL(service: "auth")), schema: AuthWorker.schema, maximumConnections: 4, logger: logger),
                bus: authBus, logger: logger)
        }
        let refundBus = require { try BusClient(configuration: process.clientConfiguration(), logger: logger) }
        let refunds = require {
            try RefundCalculatorWorker(
                configuration: process.refundCalculatorConfiguration(), worker: worker,
                database: Database(
                    url: DatabaseURL(process.databaseURL(service: "refund-calculator")), schema: RefundCalculatorWorker.schema,
                    maximumConnections: 4, logger: logger),
                bus: refundBus, logger: logger)
        }
        let gateway = buildApplication(
            configuration: require(process.gatewayConfiguration),
            operations: ServiceCatalog.operations, bus: bus, authenticator: require { try process.tokenAuthenticator(bus: bus, logger: logger) },
            readinessChecks: pdfEmail.readiness.map { ("pdf-email.\($0.name)", $0.check) } + auth.readiness.map { ("auth.\($0.name)", $0.check) }
                + refunds.readiness.map { ("refund-calculator.\($0.name)", $0.check) },
            logger: logger)
        // Each product service joins this list as it arrives (see ARCHITECTURE.md), after the broker.
        try await ProcessBootstrap.run([broker] + require(pdfEmail.services) + [authBus] + require(auth.services) + [refundBus] + require(refunds.services)
            + [gateway], logger: logger)
    }
}
