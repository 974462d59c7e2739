import Bus
import PdfEmailContract
import Contracts
import Envelope
import Foundation
import Logging
import PostgresSupport
import ServiceLifecycle
import ServiceSupport

/// The pdf-email service's operations and running parts, as the `pdf-email` executable and `melon`
/// run them.
public struct PdfEmailWorker: Sendable {
    /// The database schema the service owns.
    public static let schema = "pdf_email"

    public let database: Database
    public let runtime: WorkerRuntime
    public let delivery: MailDelivery

    /// The operations of `pdf-email`, ready for a `WorkerRuntime` or a contract test.
    public static func registry(handlers: MailHandlers, codec: EnvelopeCodec = EnvelopeCodec()) -> OperationRegistry {
        var registry = OperationRegistry(service: PdfEmail.name, codec: codec)
        registry.register(PdfEmail.Mail.Send.self, handler: handlers.send)
        registry.register(PdfEmail.Mail.Status.self, handler: handlers.status)
        registry.register(PdfEmail.Account.Erase.self, handler: handlers.erase)
        return registry
    }

    /// The service's migrations, shipped as resources.
    public static func migrations() throws -> [Migration] {
        try Migration.load(from: Bundle.module.resourceURL!.appendingPathComponent("Migrations"))
    }

    public init(configuration: PdfEmailConfiguration, worker: WorkerConfiguration, database: Database, logger: Logger) throws {
        let repository = MailPostgresRepository(database: database)
        let handlers = MailHandlers(
            composer: MailComposer(templates: try MailTemplates.bundled(), from: configuration.from, limits: configuration.limits),
            repository: repository)
        let transport: any MailTransport
        switch configuration.transport {
        case .smtp(let smtp):
            transport = SMTPTransport(configuration: smtp)
            logger.info("mail goes out over SMTP", metadata: ["smtp": "\(Self.redacted(smtp.url))"])
        case .spool(let folder):
            transport = SpoolTransport(folder: folder, logger: logger)
            logger.notice("SMTP_URL is not set: mail is written as .eml files to the spool folder", metadata: ["folder": "\(folder.path)"])
        }
        self.database = database
        runtime = try WorkerRuntime(registry: Self.registry(handlers: handlers), configuration: worker, logger: logger)
        delivery = MailDelivery(repository: repository, transport: transport, configuration: configuration.delivery, logger: logger)
    }

    /// In ServiceGroup order: the pool, then (once the schema is migrated) the worker and the delivery loop.
    public func services() throws -> [any Service] {
        [database, RunAfterMigrations(database: database, migrations: try Self.migrations(), services: [runtime, delivery])]
    }

    /// What /readyz checks.
    public var readiness: [(name: String, check: HealthServer.Check)] {
        let runtime = runtime, database = database
        return [("broker", { runtime.health.isConnected }), ("database", { await database.isReachable() })]
    }

    /// The SMTP URL without credentials, for logs.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "(unreadable URL)" }
        if components.password != nil { components.password = "redacted" }
        return components.string ?? "(unreadable URL)"
    }
}
