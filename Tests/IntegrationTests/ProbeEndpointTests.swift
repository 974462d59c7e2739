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

    /// With HEALTH_PORT the gateway answers probes and serves metrics there and not on the API's
    /// port, so clients cannot read the process's metrics or probe its readiness.
    @Test func theGatewayServesItsProbesOnTheHealthPortAlone() async throws {
        let endpoint = Ports.freeEndpoint(), httpPort = Ports.free(), healthPort = Ports.free()
        let broker = try ChildProcess(product: "broker", environment: ["BROKER_ENDPOINT": endpoint, "EVENTS_ENDPOINT": ""])
        let gateway = try ChildProcess(product: "gateway", environment: [
            "BROKER_ENDPOINT": endpoint, "HTTP_PORT": "\(httpPort)", "HEALTH_PORT": "\(healthPort)",
        ])
        let health = HTTPTestClient(base: URL(string: "http://127.0.0.1:\(healthPort)")!)
        let api = HTTPTestClient(base: URL(string: "http://127.0.0.1:\(httpPort)")!)
        #expect(await eventually(timeout: .seconds(20)) { try await health.get("/healthz").status == 200 }, "\(gateway.output)")
        #expect(try await health.get("/metrics").status == 200)
        // No service has a worker: unready, naming them.
        let unready = try await health.get("/readyz")
        #expect(unready.status == 503 && unready.text.contains("refund-calculator") && !unready.text.contains("broker"), "\(unready.text)")
        #expect(await eventually(timeout: .seconds(20)) { try await api.get("/openapi.json").status == 200 })
        for path in ["/healthz", "/readyz", "/metrics"] { #expect(try await api.get(path).status == 404, "\(path) on the API's port") }
        #expect(try await api.get("/openapi.json").json?["paths"]?["/metrics"] == nil, "the probes are not in the API document")
        #expect(await gateway.terminate() == 0)
        #expect(await broker.terminate() == 0)
    }
}
}
