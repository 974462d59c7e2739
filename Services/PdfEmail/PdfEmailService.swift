import Contracts
import Foundation
import PdfEmailContract
import Logging
import PostgresSupport
import ServiceKit
import ServiceSupport

extension ServiceDefinition {
    /// `pdf-email`: serves `pdf-email.mail.*` and delivers the queued mail. Any number of instances
    /// share the queue in PostgreSQL and never send one mail twice.
    public static let pdfEmail = ServiceDefinition(
        contract: PdfEmail.self, schema: "pdf_email",
        settings: Setting.pdfEmailSettings, settingPrefixes: ["smtp", "mail"],
        deployment: ServiceDeployment(
            about: "outgoing mail: a durable queue, templates, SMTP (or a spool folder); the tax forms as PDFs (official blanks filled with qpdf, "
                + "the others laid out with libharu, AES-256 on request); replicas share the queue, so scaling out never sends one mail twice",
            scratch: [
                ScratchDirectory(volume: "mail-spool", path: "/var/spool/melon-mail", shared: true, environment: ["MAIL_SPOOL_DIR": "/var/spool/melon-mail"]),
                // The official blanks are prepared at start into a temporary folder.
                ScratchDirectory(volume: "tmp", path: "/tmp", shared: false, environment: ["TMPDIR": "/tmp"]),
            ],
            maxReplicas: 6),
        migrations: { try Migration.load(bundle: .module) }
    ) { environment in
        let configuration = try environment.settings.pdfEmailConfiguration()
        let database = environment.requireDatabase()
        let repository = MailPostgresRepository(database: database)
        let mail = MailHandlers(
            composer: MailComposer(templates: try MailTemplates.bundled(), from: configuration.from, maxAttachmentBytes: configuration.maxAttachmentBytes),
            repository: repository)
        let blanks = try BlankBook.bundled(preparingIn: FileManager.default.temporaryDirectory.appendingPathComponent("melon-blanks-\(UUID().uuidString)"))
        let forms = FormHandlers(packet: FormPacket(blanks: blanks))
        var handlers = OperationHandlers(PdfEmail.self, database: environment.database)
        handlers.on(PdfEmail.Forms.Fill.self, forms.fill)
        handlers.once(PdfEmail.Mail.Send.self, prepare: mail.compose, apply: mail.send)
        handlers.on(PdfEmail.Mail.Status.self, mail.status)
        handlers.on(PdfEmail.Account.Erase.self, mail.erase)
        let delivery = MailDelivery(
            repository: repository, transport: configuration.transport.make(logger: environment.logger), configuration: configuration.delivery,
            wakeUp: database.wakeUp(MailPostgresRepository.queuedChannel), logger: environment.logger)
        let prune = PeriodicJob("mails.prune", every: .seconds(600), database: database) { connection in
            try await repository.prune(finishedBefore: configuration.retention, on: connection)
        }
        return ServiceParts(handlers: handlers, jobs: [prune], services: [delivery, PreparedBlanksFolder(folder: blanks.folder)])
    }
}

extension PdfEmailConfiguration.Transport {
    /// The transport this configuration names, saying in the log where mail goes.
    func make(logger: Logger) -> any MailTransport {
        switch self {
        case .smtp(let smtp):
            logger.info("mail goes out over SMTP", metadata: ["smtp": "\(Self.redacted(smtp.url))"])
            return SMTPTransport(configuration: smtp)
        case .spool(let folder):
            logger.notice("SMTP_URL is not set: mail is written as .eml files to the spool folder", metadata: ["folder": "\(folder.path)"])
            return SpoolTransport(folder: folder, logger: logger)
        }
    }

    /// The SMTP URL without credentials, for logs.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "(unreadable URL)" }
        if components.password != nil { components.password = "redacted" }
        return components.string ?? "(unreadable URL)"
    }
}
