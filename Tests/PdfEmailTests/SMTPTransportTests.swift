import Crypto
import Foundation
import PdfEmailService
import Testing
import TestSupport

/// The SMTP transport against a real SMTP server (aiosmtpd), the received bytes read back by Python's
/// email package.
@Suite(.timeLimit(.minutes(2))) struct SMTPTransportTests {
    static func inspect(_ file: URL) async throws -> [String: Any] {
        try await SMTPSink.inspect(file)
    }

    static func message(to: [String], attachment: [UInt8]) -> MailMessage {
        MailMessage(
            from: "Melon Tax Helper <no-reply@melon.example>", to: to,
            subject: "Dein Steuerformular ist fertig – Jürgen, 1040-NR and Form 8843 for 2025",
            text: "Hello Jürgen,\nyour forms are attached.\n", html: "<p>Hello J&uuml;rgen,</p><p>your forms are attached.</p>",
            attachments: [.init(name: "form-1040-NR.pdf", mediaType: "application/pdf", bytes: attachment)],
            id: "d5f0c7b2-6a1e-4a7c-9a51-3a4f1c0b9e11", date: Date(timeIntervalSince1970: 1_795_000_000))
    }

    @Test func aMailWithAnAttachmentArrivesIntact() async throws {
        let sink = try await SMTPSink()
        let attachment = (0..<150_000).map { _ in UInt8.random(in: 0...255) }
        let message = Self.message(to: ["jurgen@student.example.edu", "copy@melon.example"], attachment: attachment)
        let transport = SMTPTransport(configuration: .init(url: "smtp://127.0.0.1:\(sink.port)"))
        try await transport.send(MIMEWriter.render(message), from: message.senderAddress, to: message.to)

        let files = try sink.messages()
        try #require(files.count == 1)
        let seen = try await Self.inspect(files[0])
        #expect(seen["subject"] as? String == message.subject)
        #expect(seen["from"] as? String == "Melon Tax Helper <no-reply@melon.example>")
        #expect(seen["to"] as? String == "jurgen@student.example.edu, copy@melon.example")
        #expect(seen["text"] as? String == message.text)
        #expect(seen["html"] as? String == message.html)
        #expect(seen["messageId"] as? String == "<d5f0c7b2-6a1e-4a7c-9a51-3a4f1c0b9e11@melon.example>")
        #expect(seen["date"] as? String == "Wed, 18 Nov 2026 11:06:40 +0000")
        let attachments = seen["attachments"] as? [[String: String]]
        #expect(attachments == [["name": "form-1040-NR.pdf", "type": "application/pdf",
                                 "sha256": SHA256.hash(data: attachment).map { String(format: "%02x", $0) }.joined()]])
        #expect(seen["bareLineFeeds"] as? Int == 0)
        #expect((seen["longestLine"] as? Int ?? 999) <= 998, "RFC 5322 line limit")
        let envelope = try SMTPSink.envelope(of: files[0]) as [String: Any]?
        #expect(envelope?["from"] as? String == "no-reply@melon.example")
        #expect(envelope?["to"] as? [String] == message.to)
    }

    @Test func aRefusedRecipientIsAPermanentFailureWithTheServersReply() async throws {
        let sink = try await SMTPSink()
        let message = Self.message(to: ["reject-me@student.example.edu"], attachment: [1, 2, 3])
        let transport = SMTPTransport(configuration: .init(url: "smtp://127.0.0.1:\(sink.port)"))
        await #expect {
            try await transport.send(MIMEWriter.render(message), from: message.senderAddress, to: message.to)
        } throws: { error in
            guard let error = error as? MailDeliveryError else { return false }
            return error.permanent && error.code == 550 && error.reply.contains("550")
        }
        #expect(try sink.messages().isEmpty)
    }

    @Test func aServerThatIsDownIsATemporaryFailure() async throws {
        let message = Self.message(to: ["jurgen@student.example.edu"], attachment: [1])
        let transport = SMTPTransport(configuration: .init(url: "smtp://127.0.0.1:\(Ports.free())"))
        await #expect {
            try await transport.send(MIMEWriter.render(message), from: message.senderAddress, to: message.to)
        } throws: { error in
            (error as? MailDeliveryError)?.permanent == false
        }
    }
}

/// TLS and AUTH against a real server with a test certificate: STARTTLS on smtp://, TLS from the first
/// byte on smtps://, and no password ever sent in the clear.
@Suite(.timeLimit(.minutes(2))) struct SMTPSecurityTests {
    static let message = SMTPTransportTests.message(to: ["jurgen@student.example.edu"], attachment: [1, 2, 3])

    private func send(_ configuration: SMTPTransport.Configuration) async -> MailDeliveryError? {
        do throws(MailDeliveryError) {
            try await SMTPTransport(configuration: configuration).send(
                MIMEWriter.render(Self.message), from: Self.message.senderAddress, to: Self.message.to)
            return nil
        } catch {
            return error
        }
    }

    @Test func starttlsWithAuthDelivers() async throws {
        let certificate = try await TestCertificate()
        let sink = try await SMTPSink(options: ["--starttls", certificate.certificate, certificate.key, "--auth", "melon:s3cret"])
        let error = await send(.init(url: "smtp://127.0.0.1:\(sink.port)", user: "melon", password: "s3cret", caFile: certificate.certificate))
        try Self.expectOneMailOverTLS(as: "melon", error: error, sink: sink)
    }

    /// One mail arrived, over TLS, after logging in as `login`; returns it.
    @discardableResult
    static func expectOneMailOverTLS(as login: String, error: (any Error)?, sink: SMTPSink) throws -> URL {
        #expect(error == nil, "\(String(describing: error))")
        let files = try sink.messages()
        try #require(files.count == 1)
        let envelope = try SMTPSink.envelope(of: files[0])
        #expect(envelope["tls"] as? Bool == true)
        #expect(envelope["login"] as? String == login)
        return files[0]
    }

    @Test func smtpsIsTLSFromTheStartWithCredentialsInTheURL() async throws {
        let certificate = try await TestCertificate()
        let sink = try await SMTPSink(options: ["--tls", certificate.certificate, certificate.key, "--auth", "melon:s3cret"])
        let error = await send(.init(url: "smtps://melon:s3cret@127.0.0.1:\(sink.port)", caFile: certificate.certificate))
        let file = try Self.expectOneMailOverTLS(as: "melon", error: error, sink: sink)
        #expect(try await SMTPSink.inspect(file)["subject"] as? String == Self.message.subject)
    }

    @Test func aRefusedLoginIsTemporarySoMailWaitsForTheFix() async throws {
        let certificate = try await TestCertificate()
        let sink = try await SMTPSink(options: ["--starttls", certificate.certificate, certificate.key, "--auth", "melon:s3cret"])
        let error = await send(.init(url: "smtp://127.0.0.1:\(sink.port)", user: "melon", password: "wrong", caFile: certificate.certificate))
        #expect(error?.permanent == false)
        #expect(error?.code == 535)
        #expect(error?.reply.contains("SMTP_PASSWORD") == true)
        #expect(try sink.messages().isEmpty)
    }

    @Test func anUntrustedCertificateIsRefused() async throws {
        let certificate = try await TestCertificate()
        let sink = try await SMTPSink(options: ["--tls", certificate.certificate, certificate.key])
        let error = await send(.init(url: "smtps://127.0.0.1:\(sink.port)"))
        #expect(error?.permanent == false, "\(String(describing: error))")
        #expect(try sink.messages().isEmpty)
    }

    @Test func credentialsAreNeverSentWithoutTLS() async throws {
        // A server that offers no STARTTLS: with credentials configured, nothing is sent at all.
        let sink = try await SMTPSink()
        let error = await send(.init(url: "smtp://127.0.0.1:\(sink.port)", user: "melon", password: "s3cret"))
        #expect(error?.permanent == false, "\(String(describing: error))")
        #expect(try sink.messages().isEmpty)
        // Without credentials the same server takes the mail in the clear (a local relay).
        #expect(await send(.init(url: "smtp://127.0.0.1:\(sink.port)")) == nil)
        #expect(try sink.messages().count == 1)
    }

    /// Mail holds codes and personal data: only a relay on this host may take it in the clear.
    @Test func aServerBeyondLoopbackMustSpeakTLS() {
        for local in ["smtp://127.0.0.1:25", "smtp://localhost:25", "smtp://LOCALHOST", "smtp://127.9.9.9:2525", "smtp://[::1]:25"] {
            #expect(!SMTPTransport.Configuration(url: local).requiresTLS, "\(local)")
        }
        for remote in ["smtp://mail.example.org:587", "smtp://192.0.2.10:25", "smtp://[2001:db8::1]:25", "smtp://localhost.example.org:25", "smtp:///"] {
            #expect(SMTPTransport.Configuration(url: remote).requiresTLS, "\(remote)")
        }
        #expect(SMTPTransport.Configuration(url: "smtp://127.0.0.1:25", user: "melon", password: "s3cret").requiresTLS, "credentials always need TLS")
    }
}

/// The local default: mail lands in a folder as .eml files.
@Suite(.timeLimit(.minutes(2))) struct SpoolTransportTests {
    @Test func eachMessageBecomesAnEMLFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("melon-spool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let message = SMTPTransportTests.message(to: ["jurgen@student.example.edu"], attachment: [9, 8, 7])
        let rendered = MIMEWriter.render(message)
        let spool = SpoolTransport(folder: folder, logger: .init(label: "spool"))
        try await spool.send(rendered, from: message.senderAddress, to: message.to)
        try await spool.send(rendered, from: message.senderAddress, to: message.to)
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        #expect(files.count == 2)
        #expect(try files.allSatisfy { try Data(contentsOf: $0) == Data(rendered) && $0.pathExtension == "eml" })
        let seen = try await SMTPTransportTests.inspect(files[0])
        #expect(seen["subject"] as? String == message.subject)
    }
}
