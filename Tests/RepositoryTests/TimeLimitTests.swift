import Foundation
import Testing
import TestSupport

/// Every test has a time limit: a hang fails its test instead of stalling the whole run.
@Suite(.timeLimit(.minutes(2))) struct TimeLimitTests {
    @Test func everySuiteDeclaresATimeLimit() throws {
        let root = BuildProducts.packageRoot().appendingPathComponent("Tests")
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)).compactMap { $0 as? URL }
            .filter { $0.pathExtension == "swift" }
        var suites = 0
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for line in text.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix("@Suite") {
                suites += 1
                #expect(line.contains(".timeLimit("), "\(file.lastPathComponent): \(line)")
            }
            // Every test sits in a suite (declared in the file, or extended), so a suite's limit covers it.
            if text.contains("@Test") { #expect(text.contains("@Suite") || text.contains("extension "), "\(file.lastPathComponent) has tests outside a suite") }
        }
        #expect(suites > 40)
    }
}
