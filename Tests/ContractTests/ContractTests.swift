import Bus
import Contracts
import Envelope
import Foundation
import Testing
import TestSupport

/// Every bus operation's examples, checked on the provider side (the real handler) and the consumer
/// side (the caller's types).
@Suite struct ContractTests {
    static let examples: [ContractExample] = {
        let directory = Bundle.module.resourceURL!.appendingPathComponent("Examples")
        return (try? ContractExample.all(in: directory)) ?? []
    }()

    /// The registry that serves each service's operations, as its worker registers them.
    static let providers: [String: OperationRegistry] = [
        "echo": EchoService.registry(),
    ]

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
        let registry = try #require(Self.providers[service], "no provider registry for \(service)")
        #expect(try await ContractCheck.provider(registry, example) == [])
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
        #expect(try await ContractCheck.provider(Self.providers["echo"]!, altered) == ["data.worker is a string, the example has a number"])
        #expect(try ContractCheck.consumer(Echo.Message.Repeat.self, altered).isEmpty == false)
    }
}
