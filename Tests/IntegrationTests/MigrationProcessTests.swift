import Foundation
import PostgresSupport
import Testing
import TestSupport

extension ServiceStackTests {
/// Instances of a service starting together, as separate processes, against one schema.
@Suite(.timeLimit(.minutes(10))) struct MigrationProcessTests {
    @Test func processesStartingTogetherApplyEachMigrationOnce() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["TEST_DATABASE_URL"])
        let schema = TestDatabase.freshSchema("p")
        let folder = BuildProducts.packageRoot().appendingPathComponent("Tests/PostgresSupportTests/Migrations").path
        let probes = try (0..<3).map { index in
            try ChildProcess(executable: BuildProducts.path("migrate-probe"), arguments: [url, schema, folder], name: "migrate-probe-\(index)")
        }
        var applied: [Int] = []
        for probe in probes {
            #expect(await probe.wait(timeout: .seconds(60)) == 0, "\(probe.output)")
            applied += probe.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        }
        #expect(applied.sorted() == (try Migration.load(from: URL(fileURLWithPath: folder))).map(\.version))
    }
}
}
