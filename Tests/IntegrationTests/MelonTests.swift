import Envelope
import Foundation
import MelonServices
import Testing
import TestSupport

/// `melon`, everything in one process, serves each service like separate processes would.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(10))) struct MelonTests {
    @Test func melonServesAuthPdfEmailAndTheRefundCalculatorTogether() async throws {
        let started = try await MelonProcess.start(required: MelonServices.localEnvironment())
        let (melon, http, spool) = (started.process, started.http, started.spool)
        let ready = try await http.get("/readyz").json
        // Every service's bus connection and database, and a worker for every service with routes.
        var checks: [String: JSONValue] = [:]
        for definition in MelonServices.all {
            checks["\(definition.name).broker"] = true
            if definition.schema != nil { checks["\(definition.name).database"] = true }
        }
        #expect(ready?["checks"] == .object(checks))
        let routed = MelonServices.all.filter { $0.contract.operations.contains { !$0.http.isEmpty } }
        #expect(ready?["services"] == .object(Dictionary(uniqueKeysWithValues: routed.map { ($0.name, true) })), "every routed service has a worker")
        // `melon openapi` prints the document /openapi.json serves (docs/openapi.json holds it too).
        let printer = try ChildProcess(executable: BuildProducts.path("melon"), arguments: ["openapi"], name: "melon-openapi")
        #expect(await printer.wait(timeout: .seconds(30)) == 0, "\(printer.output)")
        let served = try await http.get("/openapi.json")
        #expect(try JSONValue.parse(Array(printer.output.utf8)) == JSONValue.parse(Array(served.text.utf8)), "melon openapi prints another document")
        let estimate = try await http.post("/v1/refunds/estimate", json: #"{"taxYear":2024,"status":"single","salaryCents":4320000,"taxPaidCents":550000}"#)
        #expect(estimate.json?["refundCents"] == 370_00, "\(estimate.text)")

        // A sign-up through the gateway: auth queues the code in its outbox, pdf-email writes it to the spool.
        let registered = try await http.post("/v1/auth/register", json: #"{"email":"ana@tcd.ie","password":"a long walk by the Liffey","displayName":"Ana","username":"ana"}"#)
        #expect(registered.status == 202, "\(registered.text)")
        // Only finished mail: the spool writes each file under a temporary name, then renames it.
        let spooled = { @Sendable in
            ((try? FileManager.default.contentsOfDirectory(at: spool, includingPropertiesForKeys: nil)) ?? []).filter { $0.pathExtension == "eml" }
        }
        #expect(await eventually(timeout: .seconds(20)) { spooled().count == 1 }, "the verification mail reaches the spool")
        let files = spooled()
        let seen = try await SMTPSink.inspect(try #require(files.first))
        #expect((seen["subject"] as? String)?.hasPrefix("Your Melon verification code: ") == true)

        #expect(await melon.terminate() == 0)
    }

    /// melon's bus has no CurveZMQ: an endpoint another process could reach (tcp, ipc) would let it
    /// call any operation as any account, so melon refuses to start with one.
    @Test func melonRefusesABusEndpointOtherProcessesCouldReach() async throws {
        for (name, endpoint) in [("BROKER_ENDPOINT", Ports.freeEndpoint()), ("EVENTS_ENDPOINT", "ipc:///tmp/melon-events-\(UUID().uuidString)")] {
            let melon = try ChildProcess(product: "melon", environment: [name: endpoint, "HTTP_PORT": "\(Ports.free())"])
            #expect(await melon.wait(timeout: .seconds(30)) == 64, "\(melon.output)")
            #expect(melon.output.contains("\(name) (") && melon.output.contains("inproc://"), "\(melon.output)")
        }
    }
}
}
