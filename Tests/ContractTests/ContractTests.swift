import Bus
import Contracts
import Envelope
import Foundation
import PdfEmailService
import PostgresNIO
import PostgresSupport
import Testing
import TestSupport

/// Every bus operation's examples, checked on the provider side (the real handler) and the consumer
/// side (the caller's types).
@Suite struct ContractTests {
    static let examples: [ContractExample] = {
        let directory = Bundle.module.resourceURL!.appendingPathComponent("Examples")
        return (try? ContractExample.all(in: directory)) ?? []
    }()

    /// Runs `body` with the registry that serves `service`'s operations, as its worker registers
    /// them, on real storage (a fresh schema, migrated) where the service has any.
    static func withProvider(_ service: String, _ body: (OperationRegistry, Database?) async throws -> Void) async throws {
        switch service {
        case "echo":
            try await body(EchoService.registry(), nil)
        case "pdf-email":
            let database = try TestDatabase.make()
            try await BusHarness.with([database]) {
                try await database.migrate(PdfEmailWorker.migrations())
                let handlers = MailHandlers(
                    composer: MailComposer(templates: try MailTemplates.bundled(), from: "Melon <no-reply@melon.example>"),
                    repository: MailPostgresRepository(database: database))
                try await body(PdfEmailWorker.registry(handlers: handlers), database)
            }
        default:
            Issue.record("no provider for \(service)")
        }
    }

    /// What must exist before an example's request is answered (its provider state), by example.
    static let providerStates: [String: @Sendable (Database, JSONValue) async throws -> Void] = [
        "pdf-email.mail.status.v1/queued": { try await givenMail($1, status: "queued", in: $0) },
        "pdf-email.mail.status.v1/sent": { try await givenMail($1, status: "sent", in: $0) },
        "pdf-email.mail.status.v1/failed": { try await givenMail($1, status: "failed", in: $0) },
    ]

    /// A mail with the request's `data.id`, in `status`.
    static func givenMail(_ request: JSONValue, status: String, in database: Database) async throws {
        guard case .string(let text)? = request["data"]?["id"], let id = UUID(uuidString: text) else { throw ContractStateError() }
        let mail = QueuedMail(
            id: id, sender: "no-reply@melon.example", recipients: ["ana@student.example.edu"], message: Array("Subject: x\r\n\r\nx\r\n".utf8),
            template: nil, requestedBy: "urn:melon:contract-test", requestID: "state")
        _ = try await MailPostgresRepository(database: database).enqueue(mail, idempotencyKey: "state-\(id)", request: [])
        let attempts = status == "queued" ? 0 : 1
        let reply: String? = status == "failed" ? "550 5.1.1 mailbox unavailable" : nil
        try await database.transaction { connection in
            try await connection.query(
                """
                UPDATE mails SET status = \(status), attempts = \(attempts), reply = \(reply),
                    sent_at = CASE WHEN \(status) = 'sent' THEN now() END, failed_at = CASE WHEN \(status) = 'failed' THEN now() END
                WHERE id = \(id)
                """,
                logger: database.logger)
        }
    }

    struct ContractStateError: Error {}

    /// Each operation type's consumer check, bound to its Swift types.
    static let consumers: [String: @Sendable (ContractExample) throws -> [String]] = Dictionary(
        uniqueKeysWithValues: ContractCatalog.operations.map { operation in (operation.type, consumerCheck(operation)) })

    private static func consumerCheck<Op: BusOperation>(_ operation: Op.Type) -> @Sendable (ContractExample) throws -> [String] {
        { try ContractCheck.consumer(Op.self, $0) }
    }

    @Test func everyOperationHasAnExampleAndEveryExampleAnOperation() {
        let exampleTypes = Set(Self.examples.map(\.type))
        let operationTypes = Set(ContractCatalog.operations.map { $0.type })
        #expect(operationTypes.subtracting(exampleTypes).isEmpty, "operations without examples")
        // An example whose type left the catalog means an operation was removed or renamed without
        // a new version: delete its examples deliberately, with the operation.
        #expect(exampleTypes.subtracting(operationTypes).isEmpty, "examples of operations that no longer exist")
    }

    @Test(arguments: examples)
    func providerAnswersLikeTheExample(_ example: ContractExample) async throws {
        let service = try #require(ContractCatalog.operations.first { $0.type == example.type }).service
        try await Self.withProvider(service) { registry, database in
            if let given = Self.providerStates[example.description] {
                try await given(try #require(database), try JSONValue.parse(example.request))
            }
            #expect(try await ContractCheck.provider(registry, example) == [])
        }
    }

    @Test(arguments: examples)
    func consumerTypesMatchTheExample(_ example: ContractExample) throws {
        let check = try #require(Self.consumers[example.type])
        #expect(try check(example) == [])
    }

    @Test func theCheckerNoticesADifferentShape() async throws {
        let example = try #require(Self.examples.first { $0.type == Echo.Message.Repeat.type && $0.name == "ok" })
        let reply = String(decoding: example.reply, as: UTF8.self).replacingOccurrences(of: #""worker": "host:4242""#, with: #""worker": 4242"#)
        let altered = ContractExample(type: example.type, name: "altered", request: example.request, reply: Array(reply.utf8))
        #expect(try await ContractCheck.provider(EchoService.registry(), altered) == ["data.worker is a string, the example has a number"])
        #expect(try ContractCheck.consumer(Echo.Message.Repeat.self, altered).isEmpty == false)
    }
}
