import PdfEmailContract
import Bus
import Contracts
import Envelope
import Foundation
import Testing
import TestSupport

/// pdf-email processes on a broker and a fresh database, with an SMTP server that tests start and
/// stop, driven over the bus as other services drive it.
struct MailStack {
    let broker: Broker
    let client: BusClient
    let databaseURL: String
    /// Where the SMTP sink listens (or will): started by the test when it wants a server up.
    let smtpPort = Ports.free()

    init() async throws {
        broker = try BusHarness.broker(heartbeat: .init(interval: .milliseconds(250), liveness: 3))
        client = try BusHarness.client(broker.endpoint)
        databaseURL = try await TestDatabase.freshDatabase()
    }

    /// Starts a `pdf-email` process; `environment` adds to or overrides the test defaults (fast
    /// retries, SMTP at `smtpPort`).
    func instance(_ name: String = "pdf-email", healthPort: Int = Ports.free(), environment: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess(product: "pdf-email", environment: [
            "BROKER_ENDPOINT": broker.endpoint, "HEARTBEAT_INTERVAL": "250", "WORKERS": "4",
            "DATABASE_URL": databaseURL, "SMTP_URL": "smtp://127.0.0.1:\(smtpPort)", "SMTP_TIMEOUT": "10000",
            "MAIL_FROM": "Melon Tax Helper <no-reply@melon.example>",
            "MAIL_RETRY_FIRST": "200", "MAIL_RETRY_MAX": "1000", "HEALTH_PORT": "\(healthPort)",
        ].merging(environment) { $1 }, name: name)
    }

    /// Runs `body` with the broker and client up and the pdf-email service reachable.
    func with(_ body: () async throws -> Void) async throws {
        try await BusHarness.with([broker, client]) {
            #expect(await BusHarness.waitForService("pdf-email", client: client, timeout: .seconds(30)), "no pdf-email worker")
            try await body()
        }
    }

    func send(_ request: PdfEmail.Mail.Send.Request, idempotencyKey: String? = nil) async throws(OperationError) -> PdfEmail.Mail.Send.Response {
        try await client.call(PdfEmail.Mail.Send.self, request, options: CallOptions(idempotencyKey: idempotencyKey))
    }

    func status(_ id: String) async throws(OperationError) -> PdfEmail.Mail.Status.Response {
        try await client.call(PdfEmail.Mail.Status.self, .init(id: id))
    }

    /// Waits until every mail in `ids` has left `queued`; returns their last statuses.
    func settled(_ ids: [String], timeout: Duration = .seconds(60)) async throws -> [String: PdfEmail.Mail.Status.Response] {
        let end = ContinuousClock.now + timeout
        var statuses: [String: PdfEmail.Mail.Status.Response] = [:]
        repeat {
            for id in ids where statuses[id]?.status ?? .queued == .queued { statuses[id] = try await status(id) }
            if statuses.values.allSatisfy({ $0.status != .queued }) && statuses.count == ids.count { break }
            try await Task.sleep(for: .milliseconds(200))
        } while ContinuousClock.now < end
        return statuses
    }

    /// How many mails pdf-email keeps, whatever their status.
    func mailRows() async throws -> Int {
        try await TestDatabase.integer("SELECT count(*)::int FROM pdf_email.mails", on: databaseURL)
    }

    /// One raw mail.
    static func note(_ subject: String, to: [String] = ["ana@student.example.edu"]) -> PdfEmail.Mail.Send.Request {
        PdfEmail.Mail.Send.Request(to: to, subject: subject, text: "Body of \(subject).\n")
    }
}

/// The value of a metric line such as `melon_mail_sent_total 3` in Prometheus text, or nil.
func metric(_ name: String, in text: String) -> Double? {
    text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
}
