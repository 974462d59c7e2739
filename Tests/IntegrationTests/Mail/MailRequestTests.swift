import PdfEmailContract
import Bus
import Contracts
import Envelope
import Foundation
import Testing
import TestSupport

/// What pdf-email refuses, and how it answers repeats: over the bus to a running `pdf-email`.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(10))) struct MailRequestTests {
    /// The `invalid` error `body` throws, or nil.
    private func refusal(_ body: () async throws(OperationError) -> Void) async -> OperationError? {
        do throws(OperationError) {
            try await body()
            return nil
        } catch {
            return error
        }
    }

    @Test func badRequestsAreInvalidNamingTheField() async throws {
        let stack = try await MailStack()
        let service = try stack.instance(environment: ["MAIL_MAX_ATTACHMENT_BYTES": "100000"])
        try await stack.with {
            let verification = PdfEmail.Mail.TemplateChoice(name: "verification-code", variables: ["name": "Ana", "code": "123456", "minutes": "10"])
            let cases: [(String, PdfEmail.Mail.Send.Request, [String])] = [
                ("invalid address", .init(to: ["ana@student.example.edu", "not an address"], template: verification), ["data.to[1]"]),
                ("header injection", .init(to: ["ana@example.org\r\nBcc: all@example.org"], template: verification), ["data.to[0]"]),
                ("no recipient", .init(to: [], template: verification), ["data.to"]),
                ("unknown template", .init(to: ["ana@example.org"], template: .init(name: "welcome", variables: [:])), ["data.template.name"]),
                ("missing variable", .init(to: ["ana@example.org"], template: .init(name: "verification-code", variables: ["name": "Ana", "minutes": "10"])),
                 ["data.template.variables.code"]),
                ("template and subject", .init(to: ["ana@example.org"], template: verification, subject: "Hi", text: "Hi"), ["data.template"]),
                ("no content", .init(to: ["ana@example.org"]), ["data.template"]),
                ("two-line subject", .init(to: ["ana@example.org"], subject: "Hi\r\nBcc: x@example.org", text: "Hi"), ["data.subject"]),
                ("oversize attachment", .init(to: ["ana@example.org"], template: verification, attachments: [
                    .init(name: "a.pdf", mediaType: "application/pdf", content: Data(count: 60_000)),
                    .init(name: "b.pdf", mediaType: "application/pdf", content: Data(count: 60_000)),
                ]), ["data.attachments"]),
                // The schema's problems first (the kit checks it before the handler), then the handler's.
                ("bad attachment", .init(to: ["ana@example.org"], template: verification, attachments: [
                    .init(name: "../etc/passwd", mediaType: "pdf", content: Data()),
                ]), ["data.attachments[0].mediaType", "data.attachments[0].content"]),
                ("a path for a name", .init(to: ["ana@example.org"], template: verification, attachments: [
                    .init(name: "../etc/passwd", mediaType: "application/pdf", content: Data([1])),
                ]), ["data.attachments[0].name"]),
            ]
            for (name, request, fields) in cases {
                let error = await refusal { () async throws(OperationError) in _ = try await stack.send(request) }
                #expect(error?.code == .invalid, "\(name)")
                #expect(error?.fields.map(\.field) == fields, "\(name): \(error?.description ?? "accepted")")
            }

            // Base64 that is not base64 is refused by the decoder, naming the field.
            let raw = try await stack.client.call(
                service: "pdf-email", type: PdfEmail.Mail.Send.type,
                data: Array(#"{"to":["ana@example.org"],"template":{"name":"verification-code","variables":{"name":"A","code":"1","minutes":"1"}},"attachments":[{"name":"a.pdf","mediaType":"application/pdf","content":"%%%"}]}"#.utf8),
                options: CallOptions())
            if case .failure(let error) = raw {
                #expect(error.code == .invalid && error.fields.map(\.field) == ["data.attachments[0].content"], "\(error)")
            } else {
                Issue.record("bad base64 was accepted")
            }

            let badID = await refusal { () async throws(OperationError) in _ = try await stack.status("42") }
            #expect(badID?.code == .invalid && badID?.fields.map(\.field) == ["data.id"])
            let unknown = await refusal { () async throws(OperationError) in _ = try await stack.status(UUID().uuidString.lowercased()) }
            #expect(unknown?.code == .notFound)
        }
        _ = service
    }

    @Test func aRepeatedRequestQueuesOneMail() async throws {
        let stack = try await MailStack()
        let sink = try await SMTPSink(port: stack.smtpPort)
        let service = try stack.instance()
        try await stack.with {
            let key = UUID().uuidString
            let first = try await stack.send(MailStack.note("once"), idempotencyKey: key)
            let again = try await stack.send(MailStack.note("once"), idempotencyKey: key)
            #expect(first == again)
            let conflict = await refusal { () async throws(OperationError) in _ = try await stack.send(MailStack.note("something else"), idempotencyKey: key) }
            #expect(conflict?.code == .conflict)
            #expect(try await stack.settled([first.id])[first.id]?.status == .sent)
            #expect(try await stack.mailRows() == 1, "one mail queued for the key")
            #expect(try sink.messages().count == 1)
        }
        _ = service
    }
}
}
