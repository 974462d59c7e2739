import PdfEmailContract
import Contracts
import Envelope
import Foundation
@testable import PdfEmailService
import PostgresSupport
import Testing

/// Checking and filling in a send request, without storage or network: the schema check the kit
/// makes before the handler, then the composer's.
@Suite(.timeLimit(.minutes(2))) struct MailComposerTests {
    static let composer = MailComposer(templates: try! MailTemplates.bundled(), from: "Melon <no-reply@melon.example>", maxAttachmentBytes: 5 << 20)
    static let code = PdfEmail.Mail.TemplateChoice(name: "verification-code", variables: ["name": "Ana", "code": "123456", "minutes": "10"])

    static func fields(_ request: PdfEmail.Mail.Send.Request, composer: MailComposer = Self.composer) -> [String] {
        do throws(OperationError) {
            try PdfEmail.Mail.Send.check(request)
            _ = try composer.compose(request, id: "m1", date: Date())
            return []
        } catch {
            return error.fields.map(\.field)
        }
    }

    private func fields(_ request: PdfEmail.Mail.Send.Request) -> [String] { Self.fields(request) }

    @Test func aTemplateRequestBecomesAFilledInMessage() throws {
        let message = try Self.composer.compose(.init(to: ["ana@student.example.edu"], replyTo: "help@example.ie", template: Self.code), id: "m1", date: Date())
        #expect(message.subject == "Your Melon verification code: 123456")
        #expect(message.text.contains("123456") && message.html?.contains("123456") == true)
        #expect(message.from == "Melon <no-reply@melon.example>" && message.senderAddress == "no-reply@melon.example")
        #expect(message.replyTo == "help@example.ie")
    }

    @Test func everyProblemIsNamedAtOnce() {
        let request = PdfEmail.Mail.Send.Request(
            to: ["xyz", "ana@example.org", "b@-bad-.org"], replyTo: "nobody",
            template: .init(name: "verification-code", variables: ["name": "Ana"]),
            attachments: [.init(name: "a/b", mediaType: "application/pdf", content: Data([1]))])
        #expect(fields(request) == [
            "data.to[0]", "data.to[2]", "data.replyTo", "data.template.variables.code", "data.template.variables.minutes",
            "data.attachments[0].name",
        ])
    }

    @Test func contentIsATemplateOrASubjectWithText() {
        #expect(fields(.init(to: ["a@example.org"], subject: "Hi", text: "Hello")) == [])
        #expect(fields(.init(to: ["a@example.org"], subject: "Hi")) == ["data.text"])
        #expect(fields(.init(to: ["a@example.org"], text: "Hello")) == ["data.subject"])
        #expect(fields(.init(to: ["a@example.org"], template: Self.code, html: "<p>x</p>")) == ["data.template"])
        #expect(fields(.init(to: ["a@example.org"])) == ["data.template"])
        #expect(fields(.init(to: ["a@example.org"], subject: String(repeating: "s", count: 256), text: "x")) == ["data.subject"])
    }

    @Test func attachmentLimits() {
        let composer = MailComposer(templates: Self.composer.templates, from: "no-reply@melon.example", maxAttachmentBytes: 1_000)
        func fields(_ files: [PdfEmail.Mail.Attachment]) -> [String] {
            Self.fields(.init(to: ["a@example.org"], template: Self.code, attachments: files), composer: composer)
        }
        let file = { (size: Int) in PdfEmail.Mail.Attachment(name: "f.pdf", mediaType: "application/pdf", content: Data(count: size)) }
        #expect(fields([file(1_000)]) == [])
        #expect(fields([file(600), file(401)]) == ["data.attachments"])
        #expect(fields(Array(repeating: file(1), count: 11)) == ["data.attachments"])
        #expect(fields([.init(name: "a/b.pdf", mediaType: "application/pdf", content: Data([1]))]) == ["data.attachments[0].name"])
        #expect(fields([.init(name: "a.pdf", mediaType: "application/pdf; x=1", content: Data([1]))]) == ["data.attachments[0].mediaType"])
        #expect(fields([.init(name: "Jürgen's Formular.pdf", mediaType: "application/pdf", content: Data([1]))]) == [])
        #expect(fields([.init(name: "a.pdf", mediaType: "Application/PDF", content: Data([1]))]) == ["data.attachments[0].mediaType"], "lowercase, as the contract says")
        #expect(fields([.init(name: "a.pdf", mediaType: "application/pdf", content: Data())]) == ["data.attachments[0].content"])
    }
}

/// The address rule every service shares.
@Suite(.timeLimit(.minutes(2))) struct EmailAddressTests {
    @Test(arguments: ["ana@example.org", "a.b+tag@sub.example.co.uk", "o'brien@tcd.ie", "x@xn--bcher-kva.example", "1@2.io"])
    func accepted(_ address: String) {
        #expect(EmailAddress.problem(address) == nil)
    }

    @Test(arguments: [
        "", "ana", "@example.org", "ana@", "ana@localhost", "ana@@example.org", ".ana@example.org", "ana.@example.org", "a..b@example.org",
        "ana@-example.org", "ana@example-.org", "ana@exa_mple.org", "ana @example.org", "\"ana\"@example.org", "ana@[127.0.0.1]",
        "ana@example.org\r\nBcc: x@example.org", "jürgen@example.org", String(repeating: "a", count: 65) + "@example.org",
        "a@" + String(repeating: "b", count: 64) + ".org", "a@" + Array(repeating: String(repeating: "b", count: 60), count: 5).joined(separator: "."),
    ])
    func refused(_ address: String) {
        #expect(EmailAddress.problem(address) != nil)
    }
}

/// What one delivery attempt's result means for the mail.
@Suite(.timeLimit(.minutes(2))) struct DeliveryOutcomeTests {
    static func mail(attempts: Int, age: Duration) -> ClaimedMail {
        ClaimedMail(id: UUID(), sender: "a@example.org", recipients: ["b@example.org"], message: [], attempts: attempts, age: age)
    }

    static var configuration: MailDeliveryConfiguration {
        MailDeliveryConfiguration(concurrency: 4, lease: .seconds(60), retry: RetryPolicy(first: .seconds(2), maximum: .seconds(300)), maxAge: .seconds(3_600))
    }

    @Test func successIsSentAndAPermanentRefusalFailsWithTheReply() {
        #expect(MailDelivery.outcome(of: .success(()), for: Self.mail(attempts: 1, age: .zero), configuration: Self.configuration) == .sent)
        let refusal = MailDeliveryError(permanent: true, code: 550, reply: "550 5.1.1 mailbox unavailable")
        #expect(MailDelivery.outcome(of: .failure(refusal), for: Self.mail(attempts: 1, age: .zero), configuration: Self.configuration)
            == .failed(reply: "550 5.1.1 mailbox unavailable"))
    }

    @Test func aTemporaryFailureBacksOffExponentiallyUpToTheCap() {
        let down = MailDeliveryError(permanent: false, code: nil, reply: "Couldn't connect to server")
        for (attempt, (low, high)) in [(1, (1_000, 2_000)), (2, (2_000, 4_000)), (5, (16_000, 32_000)), (12, (150_000, 300_000))] {
            guard case .retry(let delay, let reply) = MailDelivery.outcome(
                of: .failure(down), for: Self.mail(attempts: attempt, age: .seconds(1)), configuration: Self.configuration)
            else {
                Issue.record("attempt \(attempt) was not retried")
                continue
            }
            #expect((low...high).contains(Int(delay.milliseconds)), "attempt \(attempt): \(delay)")
            #expect(reply == "Couldn't connect to server")
        }
    }

    @Test func aMailThatWouldOutliveTheMaximumAgeFails() {
        let down = MailDeliveryError(permanent: false, code: 421, reply: "421 try later")
        let outcome = MailDelivery.outcome(of: .failure(down), for: Self.mail(attempts: 9, age: .seconds(3_599)), configuration: Self.configuration)
        #expect(outcome == .failed(reply: "not delivered within 3600 s after 9 attempts; last: 421 try later"))
    }
}
