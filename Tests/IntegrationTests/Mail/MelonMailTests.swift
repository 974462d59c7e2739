import Bus
import Contracts
import Foundation
import Testing
import TestSupport

/// `melon`, everything in one process, serves pdf-email like a separate process would.
@Suite struct MelonMailTests {
    @Test func melonQueuesAndDeliversMailToItsSpool() async throws {
        let endpoint = Ports.freeEndpoint(), httpPort = Ports.free()
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent("melon-spool-\(UUID().uuidString)")
        let melon = try ChildProcess(product: "melon", environment: [
            "BROKER_ENDPOINT": endpoint, "EVENTS_ENDPOINT": "", "HTTP_PORT": "\(httpPort)",
            "DATABASE_URL": try await TestDatabase.freshDatabase(), "MAIL_SPOOL_DIR": spool.path,
        ])
        let http = HTTPTestClient(base: URL(string: "http://127.0.0.1:\(httpPort)")!)
        #expect(await eventually(timeout: .seconds(30)) { try await http.get("/readyz").status == 200 }, "\(melon.output)")
        let ready = try await http.get("/readyz").json
        #expect(ready?["checks"] == ["pdf-email.broker": true, "pdf-email.database": true])

        let client = try BusHarness.client(endpoint)
        try await BusHarness.with([client]) {
            let reply = try await client.call(PdfEmail.Mail.Send.self, .init(
                to: ["ana@student.example.edu"], subject: "Hello from melon", text: "Hello.\n"))
            #expect(await eventually(timeout: .seconds(20)) {
                try await client.call(PdfEmail.Mail.Status.self, .init(id: reply.id)).status == .sent
            })
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: spool.path)
        #expect(files.count == 1 && files[0].hasSuffix(".eml"))
        #expect(melon.terminate() == 0)
    }
}
