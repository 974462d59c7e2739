import Contracts
import Envelope
import Foundation
import Testing
import TestSupport

/// Every route that acts on the caller's own things or a group's they belong to (`access: .owner` or
/// `.member`) and names one by its id in its
/// path, walked as a stranger: the owner's example request, with the owner's thing in place (its provider
/// state) and without it, sent as another signed-in account like the owner's (the same app, network and
/// signed policies) and with no account at all. Each answer
/// must be the same whether or not the thing exists: `not_found` for the stranger, `unauthenticated`
/// without an account, never the thing nor a different refusal that would tell it exists. A new
/// service's owner routes are walked as soon as they have examples.
extension ContractTests {
    static let strangerExamples: [ContractExample] = examples.filter { example in
        guard let operation = operations.first(where: { $0.type == example.type }) else { return false }
        // A path that names a thing by its id (a UUID), not the caller's own by a year or a name.
        let namesAThing = operation.http.contains { binding in
            binding.access.hidesOthers && binding.pathParameters.contains { operation.requestSchema[property: $0]?.length == 36...36 }
        }
        return namesAThing && (try? JSONValue.parse(example.reply))?["outcome"] == "ok"
    }

    /// The example's request as sent by `caller` (nil: nobody signed in).
    static func request(_ example: ContractExample, as caller: UUID?) throws -> [UInt8] {
        guard case .object(var envelope) = try JSONValue.parse(example.request) else { throw ContractStateError() }
        if let caller {
            // Another account like the owner's (the same app, network and signed policies), in its own session.
            envelope["authid"] = .string(caller.uuidString.lowercased())
            var claims: [String: JSONValue] = ["app": "melon", "roles": .array(["user"])]
            if case .string(let text)? = envelope["authclaims"], case .object(let owners)? = try? JSONValue.parse(Array(text.utf8)) { claims = owners }
            claims["sid"] = .string(UUID().uuidString.lowercased())
            claims["username"] = claims["username"] == nil ? nil : "stranger"
            envelope["authclaims"] = .string(String(decoding: try JSONValue.object(claims).encoded(), as: UTF8.self))
        } else {
            for attribute in ["authtype", "authid", "authclaims"] { envelope[attribute] = nil }
        }
        return try JSONValue.object(envelope).encoded()
    }

    /// The reply's outcome and data, for `caller`, with the owner's thing in place or not.
    static func answer(to example: ContractExample, as caller: UUID?, thingExists: Bool) async throws -> JSONValue {
        let service = try #require(operations.first { $0.type == example.type }).service
        var answer = JSONValue.null
        try await withProvider(service) { registry, database in
            if thingExists, let given = providerStates[example.description] {
                try await given(try #require(database), try JSONValue.parse(example.request))
            }
            let reply = try JSONValue.parse(await registry.handle(try request(example, as: caller), logger: .init(label: "stranger"), bus: nil))
            answer = .object(["outcome": reply["outcome"] ?? .null, "data": reply["data"] ?? .null])
        }
        return answer
    }

    /// One example at a time: each starts four providers on fresh schemas, and two hundred examples
    /// at once (household alone has 58) starved each other past their time limits on two cores.
    @Test(.serialized, arguments: strangerExamples)
    func aStrangerIsAnsweredAlikeWhetherOrNotTheThingExists(_ example: ContractExample) async throws {
        let stranger = UUID()
        let existing = try await Self.answer(to: example, as: stranger, thingExists: true)
        let missing = try await Self.answer(to: example, as: stranger, thingExists: false)
        func text(_ value: JSONValue) -> String { (try? String(decoding: value.encoded(), as: UTF8.self)) ?? "?" }
        #expect(existing["outcome"] == "not_found", "\(example): a stranger got \(text(existing))")
        #expect(existing == missing, "\(example): the answer tells the thing exists: \(text(existing)) against \(text(missing))")

        let anonymous = try await Self.answer(to: example, as: nil, thingExists: true)
        #expect(anonymous["outcome"] == "unauthenticated", "\(example): without an account: \(anonymous)")
        #expect(anonymous == (try await Self.answer(to: example, as: nil, thingExists: false)), "\(example): without an account, the answers differ")
    }

    /// Every owner route that names a thing by its id is walked: each has a successful example.
    @Test func theWalkCoversEveryOwnerRouteThatNamesAThing() {
        let candidates = Set(Self.operations.filter { operation in
            operation.http.contains { binding in
                binding.access.hidesOthers && binding.pathParameters.contains { operation.requestSchema[property: $0]?.length == 36...36 }
            }
        }.map { $0.type })
        #expect(!candidates.isEmpty && Set(Self.strangerExamples.map(\.type)) == candidates, "\(candidates.sorted())")
    }
}
