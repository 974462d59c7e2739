import Foundation
import Testing
import TestSupport

extension ServiceStackTests {
/// The health, readiness and metrics endpoints of processes without an HTTP API of their own.
@Suite(.timeLimit(.minutes(10))) struct ProbeEndpointTests {
    @Test func aWorkerIsReadyOnlyWhileTheBrokerAnswers() async throws {
        let endpoint = Ports.freeEndpoint()
        let healthPort = Ports.free()
        let http = HTTPTestClient(base: URL(string: "http://127.0.0.1:\(healthPort)")!)
        let worker = try ChildProcess(product: "echo-worker", environment: [
            "BROKER_ENDPOINT": endpoint, "HEALTH_PORT": "\(healthPort)", "HEARTBEAT_INTERVAL": "100",
        ])
        #expect(await eventually(timeout: .seconds(20)) { try await http.get("/healthz").status == 200 })
        let unready = try await http.get("/readyz")
        #expect(unready.status == 503)
        #expect(unready.json == ["status": "unready", "failing": ["broker"]])

        let broker = try ChildProcess(product: "broker", environment: [
            "BROKER_ENDPOINT": endpoint, "HEARTBEAT_INTERVAL": "100", "EVENTS_ENDPOINT": "", "HEALTH_PORT": "\(Ports.free())",
        ])
        #expect(await eventually(timeout: .seconds(20)) { try await http.get("/readyz").status == 200 })
        #expect(try await http.get("/metrics").header("content-type")?.hasPrefix("text/plain") == true)

        broker.kill()
        #expect(await eventually(timeout: .seconds(5)) { try await http.get("/readyz").status == 503 },
                "silent broker: the worker reconnects and is unready until it answers")
        #expect(await worker.terminate() == 0)
    }

    @Test func theBrokerServesItsProbes() async throws {
        let healthPort = Ports.free()
        let broker = try ChildProcess(product: "broker", environment: [
            "BROKER_ENDPOINT": Ports.freeEndpoint(), "EVENTS_ENDPOINT": "", "HEALTH_PORT": "\(healthPort)",
        ])
        let http = HTTPTestClient(base: URL(string: "http://127.0.0.1:\(healthPort)")!)
        #expect(await eventually(timeout: .seconds(20)) { try await http.get("/readyz").status == 200 })
        #expect(try await http.get("/metrics").status == 200)
        #expect(try await http.get("/nothing").status == 404)
        #expect(await broker.terminate() == 0)
    }
}
}
