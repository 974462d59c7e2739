import Foundation
import Testing
import TestSupport

/// Schemathesis (PyPI, installed by deploy/test.sh) generates requests from /openapi.json, sends them
/// to the running gateway and checks every response against the document: no 5xx, documented status
/// codes, content types, headers and bodies, and rejection of input the document forbids.
enum Schemathesis {
    /// Runs it against the gateway at `base` and records an issue with the end of its report unless
    /// it passes. `excluding` names checks left out, each with its reason at the caller.
    static func check(_ base: String, excluding checks: [String], headers: [String: String] = [:], maxExamples: Int,
                      requestTimeout: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let tools = try #require(ProcessInfo.processInfo.environment["MELON_TEST_TOOLS"], "run the tests with ./deploy/test.sh, which installs schemathesis")
        let run = try ChildProcess(executable: "\(tools)/st", arguments: [
            "run", "\(base)/openapi.json", "--url", base, "--checks", "all", "--exclude-checks", checks.joined(separator: ","),
            "--phases", "examples,coverage,fuzzing", "--max-examples", "\(maxExamples)",
            "--seed", "1", "--request-timeout", "\(requestTimeout)", "--generation-codec", "utf-8",
        ] + headers.flatMap { ["--header", "\($0.key): \($0.value)"] }, environment: ["SCHEMATHESIS_HOOKS": "", "NO_COLOR": "1"], name: "schemathesis")
        let status = await run.wait(timeout: .seconds(900))
        // The failures (each case with the request that reproduces it) and the summary: the warnings
        // between them list every operation and would push the failures out. Failing cases can quote
        // long generated inputs, so cut lines.
        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false).map { $0.prefix(300) }
        let failures = lines.drop { !$0.contains("= FAILURES =") }.prefix { !$0.contains("= WARNINGS =") && !$0.contains("= SUMMARY =") }.filter { !$0.isEmpty }
        let summary = lines.drop { !$0.contains("= SUMMARY =") }
        let report = (failures.prefix(120) + summary).joined(separator: "\n")
        #expect(status == 0, "schemathesis found problems:\n\(report)", sourceLocation: sourceLocation)
    }
}
