import Foundation
import Testing
import TestSupport

/// Schemathesis (PyPI, installed by deploy/test.sh) generates requests from /openapi.json, sends them
/// to the running gateway and checks every response against the document: no 5xx, documented status
/// codes, content types, headers and bodies, and rejection of input the document forbids.
@Suite struct OpenAPIConformanceTests {
    @Test func theGatewayBehavesAsItsDocumentSays() async throws {
        let tools = try #require(ProcessInfo.processInfo.environment["MELON_TEST_TOOLS"], "run the tests with ./deploy/test.sh, which installs schemathesis")
        let broker = try BusHarness.broker()
        // Deadlines of 2 s or more: schemathesis sends the shortest one the document allows, and on a
        // machine the parallel suite loads 100 ms is not always enough for an echo (a 504 is a 5xx).
        let (gateway, address) = try GatewayHarness.gateway(broker.endpoint) { $0.minDeadline = .seconds(2) }
        let worker = try BusHarness.echoWorker(broker.endpoint, workers: 4)
        let probe = try BusHarness.client(broker.endpoint)
        try await BusHarness.with([broker, worker, gateway, probe]) {
            #expect(await BusHarness.waitForService("echo", client: probe))
            let base = try await address.client().base.absoluteString
            let run = try ChildProcess(executable: "\(tools)/st", arguments: [
                // Two exclusions, both about the tool rather than the API: `negative_data_rejection`
                // wants requests with unknown headers refused, but HTTP says to ignore them (RFC 9110
                // section 5.1; GatewayTests pins the rejection of bad bodies, parameters and our own
                // headers); the stateful phase feeds response values into parameters through links it
                // guesses, without the parameters' own limits.
                "run", "\(base)/openapi.json", "--url", base, "--checks", "all", "--exclude-checks", "negative_data_rejection",
                "--phases", "examples,coverage,fuzzing", "--max-examples", "25",
                "--seed", "1", "--request-timeout", "15", "--generation-codec", "utf-8",
            ], environment: ["SCHEMATHESIS_HOOKS": "", "NO_COLOR": "1"], name: "schemathesis")
            let status = await run.wait(timeout: .seconds(600))
            // The report ends with a summary; failing cases can quote long generated inputs, so cut lines.
            let report = run.output.split(separator: "\n").map { $0.prefix(300) }.suffix(120).joined(separator: "\n")
            #expect(status == 0, "schemathesis found problems:\n\(report)")
        }
    }
}
