import Bus
import PostgresSupport
import RefundCalculatorService
import ServiceSupport

/// `refund-calculator`: Irish PAYE refund estimates, help text, saved scenarios and contact
/// requests. Run as many as needed.
@main
struct RefundCalculatorApp {
    static func main() async throws {
        let (settings, logger) = ProcessBootstrap.start(
            process: "refund-calculator", summary: "Irish PAYE refund estimates, saved scenarios and contact requests.",
            settings: [.brokerEndpoint, .workers, .heartbeatInterval, .heartbeatLiveness, .gracePeriod, .busMaxMessageBytes, .healthPort, .healthHost]
                + Setting.refundCalculatorSettings)
        func require<T>(_ read: () throws -> T) -> T { ProcessBootstrap.require(read, process: "refund-calculator") }
        let bus = require { try BusClient(configuration: settings.clientConfiguration(), logger: logger) }
        let service = require {
            try RefundCalculatorWorker(
                configuration: settings.refundCalculatorConfiguration(), worker: settings.workerConfiguration(),
                database: Database(
                    url: DatabaseURL(settings.databaseURL(service: "refund-calculator")), schema: RefundCalculatorWorker.schema,
                    maximumConnections: 8, logger: logger),
                bus: bus, logger: logger)
        }
        try await ProcessBootstrap.run([bus] + require(service.services), readiness: service.readiness, settings: settings, logger: logger)
    }
}
