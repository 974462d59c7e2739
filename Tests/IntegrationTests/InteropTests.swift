import Bus
import Contracts
import Envelope
import Foundation
import Testing
import TestSupport

extension ServiceStackTests {
/// Our broker and Swift worker against Majordomo peers written in Python from RFC 7
/// (Tests/Interop/mdp.py), each in its own process.
@Suite(.serialized, .timeLimit(.minutes(10))) struct InteropTests {
    static let python = "/usr/bin/python3"
    let script = BuildProducts.packageRoot().appendingPathComponent("Tests/Interop/interop.py").path

    private func python(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(executable: Self.python, arguments: [script] + arguments, name: "python-\(arguments[0])")
    }

    private func output(_ process: ChildProcess) async -> String? {
        guard await process.wait(timeout: .seconds(15)) == 0 else { return nil }
        return process.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func pythonClientAndPythonWorkerTalkThroughOurBroker() async throws {
        let endpoint = Ports.freeEndpoint()
        let broker = try ChildProcess(product: "broker", environment: ["BROKER_ENDPOINT": endpoint, "EVENTS_ENDPOINT": ""])
        let worker = try python(["worker", endpoint, "py.upper", "2"])
        let lookup: @Sendable () async throws -> String? = { [self] in await output(try python(["mmi", endpoint, "py.upper"])) }
        #expect(await eventually { try await lookup() == "200" }, "broker log: \(broker.logPath)")
        #expect(await output(try python(["client", endpoint, "py.upper", "hello", "two frames"])) == #"["HELLO", "TWO FRAMES"]"#)
        #expect(await output(try python(["client", endpoint, "py.upper", "again"])) == #"["AGAIN"]"#)
        // The Python worker served its two requests and said DISCONNECT: the broker forgets it.
        #expect(await worker.wait(timeout: .seconds(10)) == 0, "worker log: \(worker.output)")
        #expect(await eventually { try await lookup() == "404" })
    }

    @Test func ourSwiftWorkerServesThePythonClient() async throws {
        let endpoint = Ports.freeEndpoint()
        let environment = ["BROKER_ENDPOINT": endpoint, "EVENTS_ENDPOINT": ""]
        let broker = try ChildProcess(product: "broker", environment: environment)
        let worker = try ChildProcess(product: "echo-worker", environment: environment)
        #expect(await eventually { await output(try python(["mmi", endpoint, "echo"])) == "200" }, "logs: \(broker.logPath) \(worker.logPath)")

        let request = #"{"specversion":"1.0","id":"py-1","source":"urn:python","type":"echo.message.repeat.v1","time":"2026-11-21T10:00:00Z","data":{"text":"from python"}}"#
        let raw = try #require(await output(try python(["client", endpoint, "echo", request])))
        let frames = try JSONDecoder().decode([String].self, from: Data(raw.utf8))
        #expect(frames.count == 1)
        let reply = try EnvelopeCodec().decode(ReplyEnvelope<Echo.Message.Repeat.Response>.self, from: Array(frames[0].utf8))
        #expect(reply.attributes.correlationID == "py-1")
        #expect(try reply.result.get().text == "from python")

        // A body that is not an envelope still gets an answer, never silence.
        let garbage = try #require(await output(try python(["client", endpoint, "echo", "not json"])))
        #expect(garbage.contains(#"\"outcome\":\"invalid\""#))
    }
}
}
