import Foundation
import Synchronization
import Testing
import TestSupport

extension ServiceStackTests {
/// Scaling a service by starting another process of it against the running stack, and stopping one
/// under load, seen through the gateway over HTTP.
@Suite(.timeLimit(.minutes(10))) struct ScalingTests {
    private func environment(_ endpoint: String) -> [String: String] {
        ["BROKER_ENDPOINT": endpoint, "HEARTBEAT_INTERVAL": "250", "WORKERS": "4", "GRACE_PERIOD": "10000"]
    }

    @Test func aSecondProcessTakesLoadAndStoppingOneUnderLoadFailsNothing() async throws {
        let broker = try BusHarness.broker(heartbeat: .init(interval: .milliseconds(250), liveness: 3))
        let (gateway, address) = try GatewayHarness.gateway(broker.endpoint)
        let probe = try BusHarness.client(broker.endpoint)
        let first = try ChildProcess(product: "echo-worker", environment: environment(broker.endpoint), name: "echo-first")
        try await BusHarness.with([broker, gateway, probe]) {
            #expect(await BusHarness.waitForService("echo", client: probe, timeout: .seconds(20)))
            let http = try await address.client()
            let served = Ledger()
            var second: ChildProcess?

            try await withThrowingTaskGroup(of: Void.self) { group in
                // 8 clients, each sending requests one after another, 1,200 in all.
                for _ in 0..<8 {
                    group.addTask {
                        while true {
                            let index = served.take()
                            guard index < 1200 else { return }
                            let reply = try await http.post("/v1/echo", json: #"{"text":"n\#(index)","delayMilliseconds":10}"#)
                            let worker = reply.json?["worker"].flatMap { if case .string(let w) = $0 { w } else { nil } } ?? ""
                            served.record((index, reply.status, worker))
                        }
                    }
                }
                // A second process joins after 200 requests; the first is stopped with SIGTERM after 700.
                #expect(await eventually(timeout: .seconds(60)) { served.count >= 200 })
                second = try ChildProcess(product: "echo-worker", environment: environment(broker.endpoint), name: "echo-second")
                #expect(await eventually(timeout: .seconds(60)) { served.count >= 700 })
                first.signalTerminate()
                try await group.waitForAll()
            }

            let results = served.results
            let failures = results.filter { $0.status != 200 }
            #expect(results.count == 1200)
            #expect(failures.isEmpty, "\(failures.count) requests failed, first: \(failures.prefix(3))")
            let firstName = "\(ProcessInfo.processInfo.hostName):\(first.pid)"
            let secondName = "\(ProcessInfo.processInfo.hostName):\(second?.pid ?? -1)"
            let middle = results.filter { (300..<700).contains($0.index) }
            #expect(middle.contains { $0.worker == firstName } && middle.contains { $0.worker == secondName },
                    "both processes served while both ran")
            #expect(results.filter { $0.index >= 1100 }.allSatisfy { $0.worker == secondName }, "after SIGTERM only the second serves")
            #expect(await first.wait(timeout: .seconds(15)) == 0, "the stopped process exits cleanly")
        }
    }
}

/// The requests of the load run: which index comes next, and what each one got.
private final class Ledger: Sendable {
    typealias Result = (index: Int, status: Int, worker: String)
    private let next = Atomic<Int>(0)
    private let recorded = Mutex<[Result]>([])

    func take() -> Int { next.add(1, ordering: .relaxed).newValue - 1 }
    func record(_ result: Result) { recorded.withLock { $0.append(result) } }
    var count: Int { recorded.withLock { $0.count } }
    var results: [Result] { recorded.withLock { $0 } }
}
}
