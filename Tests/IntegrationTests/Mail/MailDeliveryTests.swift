import Contracts
import Crypto
import Envelope
import Foundation
import Testing
import TestSupport

/// The pdf-email service end to end: requests over the bus to `pdf-email` processes, mail over SMTP
/// to a real server (aiosmtpd), read back with Python's email package.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(10))) struct MailDeliveryTests {
    static let awkwardName = "Ana <O'Brien> & \"Co\""

    /// Each template, its variables, and what its subject must say.
    static let templates: [(name: String, variables: [String: String], subject: String)] = [
        ("verification-code", ["name": awkwardName, "code": "482913", "minutes": "10"], "Your Melon verification code: 482913"),
        ("password-reset", ["name": awkwardName, "code": "120456", "minutes": "10"], "Reset your Melon password"),
        ("tax-form-ready", ["name": awkwardName, "taxYear": "2025", "forms": "1040-NR, 8843", "deadline": "15 April 2026", "protection": "The PDF opens with the password you chose."],
         "Your 2025 tax forms are ready"),
        ("refund-contact-request", [
            "name": awkwardName, "email": "ana@student.example.edu", "phone": "+353 1 555 0100", "preferredTime": "weekday mornings",
            "summary": "PAYE 2024, estimated refund €412.50",
        ], "Refund contact request from \(awkwardName)"),
        ("refund-contact-confirmation", [
            "name": awkwardName, "phone": "+353 1 555 0100", "preferredTime": "in the morning", "summary": "Estimated refund for 2024: €412.50",
        ], "Your tax refund contact request"),
        ("generic-notice", ["title": "Rent is due <today>", "message": "Pay \(awkwardName) by 5 pm."], "Rent is due <today>"),
    ]

    @Test func everyTemplateArrivesFilledInWithItsAttachmentByteIdentical() async throws {
        let stack = try await MailStack()
        let sink = try await SMTPSink(port: stack.smtpPort)
        let healthPort = Ports.free()
        let service = try stack.instance(healthPort: healthPort)
        try await stack.with {
            var sent: [(template: (name: String, variables: [String: String], subject: String), id: String, attachment: [UInt8])] = []
            for template in Self.templates {
                let attachment = (0..<Int.random(in: 20_000...200_000)).map { _ in UInt8.random(in: 0...255) }
                let reply = try await stack.send(.init(
                    to: ["ana@student.example.edu"], replyTo: "help@refunds.example.ie",
                    template: .init(name: template.name, variables: template.variables),
                    attachments: [.init(name: "\(template.name).pdf", mediaType: "application/pdf", content: Data(attachment))]))
                #expect(reply.status == .queued)
                sent.append((template, reply.id, attachment))
            }
            let statuses = try await stack.settled(sent.map(\.id))
            #expect(statuses.values.map(\.status) == Array(repeating: .sent, count: sent.count), "\(statuses) \(service.output)")

            let received = try sink.messages()
            #expect(received.count == sent.count)
            var byID: [String: [String: Any]] = [:]
            for file in received {
                let seen = try await SMTPSink.inspect(file)
                byID[seen["messageId"] as? String ?? ""] = seen
            }
            let escapedName = "Ana &lt;O&#39;Brien&gt; &amp; &quot;Co&quot;"
            for mail in sent {
                let seen = try #require(byID["<\(mail.id)@melon.example>"], "mail \(mail.template.name) did not arrive")
                #expect(seen["subject"] as? String == mail.template.subject)
                #expect(seen["from"] as? String == "Melon Tax Helper <no-reply@melon.example>")
                #expect(seen["replyTo"] as? String == "help@refunds.example.ie")
                let text = seen["text"] as? String ?? "", html = seen["html"] as? String ?? ""
                for value in mail.template.variables.values where !mail.template.name.hasPrefix("generic") || value.hasPrefix("Pay") {
                    #expect(text.contains(value), "\(mail.template.name): text lacks \(value)")
                }
                #expect(!html.contains("<O'Brien>") && !html.contains("<today>"), "\(mail.template.name): HTML not escaped")
                if mail.template.name != "generic-notice" { #expect(html.contains(escapedName), "\(mail.template.name): \(html)") }
                let attachments = seen["attachments"] as? [[String: String]]
                #expect(attachments == [["name": "\(mail.template.name).pdf", "type": "application/pdf",
                                         "sha256": SHA256.hash(data: mail.attachment).map { String(format: "%02x", $0) }.joined()]])
                #expect(seen["bareLineFeeds"] as? Int == 0)
            }

            let http = HTTPTestClient(base: URL(string: "http://127.0.0.1:\(healthPort)")!)
            let metricsSettled = await eventually(timeout: .seconds(10)) {
                let text = try await http.get("/metrics").text
                return metric("melon_mail_sent_total", in: text) == Double(Self.templates.count) && metric("melon_mail_accepted_total", in: text) == Double(Self.templates.count)
                    && metric("melon_mail_queued", in: text) == 0 && metric("melon_mail_oldest_queued_age_seconds", in: text) == 0
            }
            let lines = try await http.get("/metrics").text.split(separator: "\n").filter { $0.hasPrefix("melon_mail") }
            #expect(metricsSettled, "metrics: \(lines)")
            #expect(try await http.get("/readyz").status == 200)
        }
        #expect(await service.terminate() == 0)
        _ = sink
    }

    @Test func mailWaitsOutADownServerAndTwoInstancesSendEachMailOnce() async throws {
        let stack = try await MailStack()
        let (firstHealth, secondHealth) = (Ports.free(), Ports.free())
        let first = try stack.instance("pdf-email-1", healthPort: firstHealth)
        let second = try stack.instance("pdf-email-2", healthPort: secondHealth)
        try await stack.with {
            var sent: [String: String] = [:]
            for index in 0..<30 {
                sent[try await stack.send(MailStack.note("mail \(index)")).id] = "mail \(index)"
            }
            let ids = sent
            // No SMTP server yet: every mail is tried, fails for now, and stays queued.
            #expect(await eventually(timeout: .seconds(20)) {
                var tried = 0
                for id in ids.keys {
                    let status = try await stack.status(id)
                    guard status.status == .queued else { return false }
                    if status.attempts >= 1, status.reply != nil { tried += 1 }
                }
                return tried == ids.count
            }, "every mail tried and still queued")

            let sink = try await SMTPSink(port: stack.smtpPort)
            let statuses = try await stack.settled(Array(ids.keys))
            #expect(statuses.values.allSatisfy { $0.status == .sent }, "\(statuses.values.filter { $0.status != .sent })")
            #expect(statuses.values.allSatisfy { $0.reply == nil && $0.sentAt != nil && $0.attempts >= 2 })
            // Each is recorded sent after the server took it: what the server has is all there will be.

            var subjects: [String] = []
            var messageIDs = Set<String>()
            for file in try sink.messages() {
                let seen = try await SMTPSink.inspect(file)
                subjects.append(seen["subject"] as? String ?? "")
                messageIDs.insert(seen["messageId"] as? String ?? "")
            }
            #expect(subjects.count == 30, "each mail arrives exactly once")
            #expect(Set(subjects) == Set(ids.values))
            #expect(messageIDs == Set(ids.keys.map { "<\($0)@melon.example>" }))

            var sentTotal = 0.0, retries = 0.0
            for port in [firstHealth, secondHealth] {
                let text = try await HTTPTestClient(base: URL(string: "http://127.0.0.1:\(port)")!).get("/metrics").text
                let (sent, retried) = (metric("melon_mail_sent_total", in: text) ?? 0, metric("melon_mail_retries_total", in: text) ?? 0)
                #expect(sent + retried > 0, "both instances worked the queue")
                sentTotal += sent
                retries += retried
            }
            #expect(sentTotal == 30)
            #expect(retries >= 30)
            _ = sink
        }
        #expect(await first.terminate() == 0)
        #expect(await second.terminate() == 0)
    }

    @Test func aPermanentRefusalEndsFailedWithTheServersReply() async throws {
        let stack = try await MailStack()
        let sink = try await SMTPSink(port: stack.smtpPort)
        let service = try stack.instance()
        try await stack.with {
            let id = try await stack.send(MailStack.note("refused", to: ["reject-me@student.example.edu"])).id
            let status = try #require(try await stack.settled([id])[id])
            #expect(status.status == .failed)
            #expect(status.attempts == 1, "a permanent refusal is not retried")
            #expect(status.failedAt != nil && status.sentAt == nil)
            #expect(status.reply?.contains("550") == true, "\(status.reply ?? "no reply")")
            #expect(try sink.messages().isEmpty)
        }
        _ = service
    }

    @Test func mailNotDeliveredWithinTheMaximumAgeFails() async throws {
        let stack = try await MailStack()
        let service = try stack.instance(environment: ["MAIL_MAX_AGE": "1500"])
        try await stack.with {
            let id = try await stack.send(MailStack.note("too late")).id
            let status = try #require(try await stack.settled([id], timeout: .seconds(20))[id])
            #expect(status.status == .failed)
            #expect(status.attempts >= 2)
            #expect(status.reply?.hasPrefix("not delivered within 1 s") == true, "\(status.reply ?? "no reply")")
        }
        _ = service
    }

    @Test func withoutSMTPMailIsWrittenToTheSpoolFolder() async throws {
        let stack = try await MailStack()
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent("melon-spool-\(UUID().uuidString)")
        let service = try stack.instance(environment: ["SMTP_URL": "", "MAIL_SPOOL_DIR": spool.path])
        try await stack.with {
            let id = try await stack.send(.init(
                to: ["ana@student.example.edu"], template: .init(name: "verification-code", variables: ["name": "Ana", "code": "000111", "minutes": "10"]))).id
            #expect(try await stack.settled([id])[id]?.status == .sent)
            let files = try FileManager.default.contentsOfDirectory(at: spool, includingPropertiesForKeys: nil)
            try #require(files.count == 1)
            let seen = try await SMTPSink.inspect(files[0])
            #expect(seen["subject"] as? String == "Your Melon verification code: 000111")
            #expect(service.output.contains(spool.path), "the log says where the spool is")
        }
    }
}
}
