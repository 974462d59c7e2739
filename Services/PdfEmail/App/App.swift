import Bus
import PdfEmailService
import PostgresSupport
import ServiceSupport

/// `pdf-email`: serves `pdf-email.mail.*` and delivers the queued mail. Run as many as needed:
/// they share the queue in PostgreSQL and never send one mail twice.
@main
struct PdfEmailApp {
    static func main() async throws {
        let (settings, logger) = ProcessBootstrap.start(
            process: "pdf-email", summary: "queues outgoing mail and delivers it over SMTP (or to a spool folder).",
            settings: [.brokerEndpoint, .workers, .heartbeatInterval, .heartbeatLiveness, .gracePeriod, .busMaxMessageBytes, .healthPort, .healthHost]
                + Setting.pdfEmailSettings)
        let service = ProcessBootstrap.require({
            try PdfEmailWorker(
                configuration: settings.pdfEmailConfiguration(), worker: settings.workerConfiguration(),
                database: Database(
                    url: DatabaseURL(settings.databaseURL(service: "pdf-email")), schema: PdfEmailWorker.schema, maximumConnections: 8, logger: logger),
                logger: logger)
        }, process: "pdf-email")
        try await ProcessBootstrap.run(
            ProcessBootstrap.require(service.services, process: "pdf-email"), readiness: service.readiness, settings: settings, logger: logger)
    }
}
