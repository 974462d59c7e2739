import Envelope
import Foundation
import MelonServices
import Testing
import TestSupport

/// The Swift client an app developer generates from docs/openapi.json with swift-openapi-generator
/// (Tests/Client, its own package, built by deploy/test.sh into .build/client): every operation
/// generates, and its journey runs against a real `melon`.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(5))) struct GeneratedClientTests {
    static let client = BuildProducts.packageRoot().appendingPathComponent(".build/client")
    static let build = "build it with `swift build --package-path Tests/Client --scratch-path .build/client` (as deploy/test.sh does)"

    @Test func everyOperationOfTheDocumentIsAMethodOfTheGeneratedClient() throws {
        let file = BuildProducts.packageRoot().appendingPathComponent("docs/openapi.json")
        let document = try JSONValue.parse(Array(try Data(contentsOf: file)))
        guard case .object(let paths)? = document["paths"] else { Issue.record("no paths"); return }
        let operations = paths.values.flatMap { item -> [String] in
            guard case .object(let methods) = item else { return [] }
            return methods.values.compactMap { if case .string(let id)? = $0["operationId"] { id } else { nil } }
        }
        let generated = Self.client.appendingPathComponent("plugins/outputs/client/MelonAPI/destination/OpenAPIGenerator/GeneratedSources/Client.swift")
        let source = try #require(try? String(contentsOf: generated, encoding: .utf8), "no generated client: \(Self.build)")
        let missing = operations.filter { !source.contains("public func \($0)(_ input: Operations.") }
        #expect(operations.count >= 53 && missing.isEmpty, "\(operations.count) operations; not generated: \(missing)")
    }

    @Test func aJourneyThroughTheGeneratedClientAgainstMelon() async throws {
        let journey = Self.client.appendingPathComponent("debug/melon-journey").path
        try #require(FileManager.default.isExecutableFile(atPath: journey), "no melon-journey: \(Self.build)")
        let melon = try await MelonProcess.start(required: MelonServices.localEnvironment())
        let run = try ChildProcess(executable: journey, arguments: [melon.http.base.absoluteString, melon.spool.path], name: "melon-journey")
        #expect(await run.wait(timeout: .seconds(120)) == 0, "\(run.output)")
        // Each kind of call: anyone, a sign-up through the mail, signed in, the owner's paged list, typed problems.
        for step in ["rules", "register", "mail", "verify", "login", "refresh", "estimate", "save", "list in pages", "get", "search members",
                     "invalid", "signed out", "someone else's", "household", "shopping list", "bill and balances", "settle up once", "pay in the app", "logout"] {
            #expect(run.output.contains("ok \(step):"), "the journey did not pass \(step):\n\(run.output)")
        }
        #expect(await melon.process.terminate() == 0)
    }
}
}
