import Bus
import Contracts
import Envelope
import Foundation
import Testing
import TestSupport

extension ServiceStackTests {
/// Separate broker and worker processes, killed and restarted under a stream of requests.
@Suite(.serialized, .timeLimit(.minutes(10))) struct FailoverTests {
    typealias Repeat = Echo.Message.Repeat

    private func environment(_ endpoint: String) -> [String: String] {
        ["BROKER_ENDPOINT": endpoint, "EVENTS_ENDPOINT": "", "EVENTS_PUBLISH_ENDPOINT": "", "HEARTBEAT_INTERVAL": "250", "HEARTBEAT_LIVENESS": "3", "LOG_LEVEL": "info"]
    }

    /// Sends `count` requests, `concurrency` at a time, and returns each one's reply text by index.
    private func stream(_ client: BusClient, count: Int, concurrency: Int, delay: Int, onProgress: @escaping @Sendable (Int) async -> Void = { _ in }) async throws -> [Int: Repeat.Response] {
        try await withThrowingTaskGroup(of: (Int, Repeat.Response).self) { group in
            var results: [Int: Repeat.Response] = [:]
            var next = 0
            func start() {
                let index = next
                next += 1
                group.addTask {
                    (index, try await client.call(Repeat.self, .init(text: "request-\(index)", delayMilliseconds: delay), options: CallOptions(timeout: .seconds(20))))
                }
            }
            while next < min(concurrency, count) { start() }
            while let (index, reply) = try await group.next() {
                #expect(results[index] == nil, "request \(index) answered twice")
                results[index] = reply
                await onProgress(results.count)
                if next < count { start() }
            }
            return results
        }
    }

    @Test func killingOneOfTwoWorkersMidStreamLosesNoRequest() async throws {
        let endpoint = Ports.freeEndpoint()
        let broker = try ChildProcess(product: "broker", environment: environment(endpoint))
        let first = try ChildProcess(product: "echo-worker", environment: environment(endpoint).merging(["WORKERS": "4"]) { $1 }, name: "echo-1")
        let second = try ChildProcess(product: "echo-worker", environment: environment(endpoint).merging(["WORKERS": "4"]) { $1 }, name: "echo-2")
        let client = try BusHarness.client(endpoint)
        try await BusHarness.with([client]) {
            #expect(await BusHarness.waitForService("echo", client: client))
            let victim = first
            let results = try await stream(client, count: 1000, concurrency: 16, delay: 5) { done in
                if done == 300 { victim.kill() }
            }
            #expect(results.count == 1000)
            #expect((0..<1000).allSatisfy { results[$0]?.text == "request-\($0)" })
            let workers = Set(results.values.map(\.worker))
            #expect(workers.count == 2, "both processes served: \(workers)")
            let survivorName = "\(ProcessInfo.processInfo.hostName):\(second.pid)"
            let servedBySurvivorLate = (700..<1000).allSatisfy { results[$0]?.worker == survivorName }
            #expect(servedBySurvivorLate, "after the kill only the survivor answers")
        }
        _ = broker
    }

    @Test func sigtermOnOneOfTwoWorkersMidStreamFailsNoRequest() async throws {
        let endpoint = Ports.freeEndpoint()
        let broker = try ChildProcess(product: "broker", environment: environment(endpoint))
        let workerEnvironment = environment(endpoint).merging(["WORKERS": "4"]) { $1 }
        let leaving = try ChildProcess(product: "echo-worker", environment: workerEnvironment, name: "echo-leaving")
        let staying = try ChildProcess(product: "echo-worker", environment: workerEnvironment, name: "echo-staying")
        let client = try BusHarness.client(endpoint)
        try await BusHarness.with([client]) {
            #expect(await BusHarness.waitForService("echo", client: client))
            #expect(await eventually { try await client.call(Repeat.self, .init(text: "warm")).worker.hasSuffix(":\(leaving.pid)") })
            // Slow requests, so several are inside the leaving worker's handlers when SIGTERM lands.
            let results = try await stream(client, count: 300, concurrency: 8, delay: 30) { done in
                if done == 60 { leaving.signalTerminate() }
            }
            #expect(results.count == 300)
            #expect((0..<300).allSatisfy { results[$0]?.text == "request-\($0)" })
            #expect(await leaving.wait(timeout: .seconds(10)) == 0, "the worker exits cleanly: \(leaving.logPath)")
        }
        _ = (broker, staying)
    }

    @Test func restartingTheBrokerMidStreamLosesNoRequest() async throws {
        let endpoint = Ports.freeEndpoint()
        let environment = environment(endpoint)
        var broker = try ChildProcess(product: "broker", environment: environment)
        let worker = try ChildProcess(product: "echo-worker", environment: environment.merging(["WORKERS": "8"]) { $1 })
        let client = try BusHarness.client(endpoint)
        try await BusHarness.with([client]) {
            #expect(await BusHarness.waitForService("echo", client: client))
            async let results = stream(client, count: 400, concurrency: 8, delay: 20)
            try await Task.sleep(for: .milliseconds(500))
            broker.kill()
            broker = try ChildProcess(product: "broker", environment: environment)
            let restarted = ContinuousClock.now
            #expect(await BusHarness.waitForService("echo", client: client))
            let registeredAfter = restarted.duration(to: .now)
            // Within three heartbeats (250 ms each) of the new broker starting, plus process start-up and
            // room for a machine the parallel suite loads.
            #expect(registeredAfter < .seconds(4), "workers took \(registeredAfter) to register again")
            let answered = try await results
            #expect(answered.count == 400)
            #expect((0..<400).allSatisfy { answered[$0]?.text == "request-\($0)" }, "worker log: \(worker.logPath)")
        }
        _ = broker
    }

    /// Issue 42: three brokers, two workers on all of them, two clients spreading 2,000 calls over
    /// them. One broker is killed (SIGKILL) mid-stream, then another: every call gets exactly one
    /// correct reply inside its deadline. The first comes back, the last of the three goes: the one
    /// that came back serves alone.
    @Test func killingTwoOfThreeBrokersMidStreamLosesNoCall() async throws {
        let endpoints = (0..<3).map { _ in Ports.freeEndpoint() }
        let list = endpoints.joined(separator: ",")
        var brokers = try endpoints.enumerated().map { index, endpoint in try ChildProcess(product: "broker", environment: environment(endpoint), name: "broker-\(index)") }
        let workers = try (1...2).map { index in
            try ChildProcess(product: "echo-worker", environment: environment(endpoints[0]).merging(["BROKER_ENDPOINTS": list, "WORKERS": "6"]) { $1 }, name: "echo-\(index)")
        }
        let clients = try [BusHarness.client(list), BusHarness.client(list)]
        let probes = try endpoints.map { try BusHarness.client($0) }
        try await BusHarness.with(clients + probes) {
            for (index, probe) in probes.enumerated() {
                #expect(await BusHarness.waitForService("echo", client: probe), "broker \(index) has a worker: \(workers.map(\.logPath))")
            }
            async let second = stream(clients[1], count: 1000, concurrency: 16, delay: 5)
            let (firstVictim, secondVictim) = (brokers[0], brokers[1])
            let first = try await stream(clients[0], count: 1000, concurrency: 16, delay: 5) { done in
                if done == 300 { firstVictim.kill() }
                if done == 650 { secondVictim.kill() }
            }
            for results in [first, try await second] {
                #expect(results.count == 1000)
                #expect((0..<1000).allSatisfy { results[$0]?.text == "request-\($0)" }, "workers: \(workers.map(\.logPath))")
            }
            brokers[0] = try ChildProcess(product: "broker", environment: environment(endpoints[0]), name: "broker-0-again")
            #expect(await BusHarness.waitForService("echo", client: probes[0]), "the workers are back on the restarted broker")
            brokers[2].kill()
            let after = try await stream(clients[0], count: 100, concurrency: 8, delay: 1)
            #expect((0..<100).allSatisfy { after[$0]?.text == "request-\($0)" }, "the broker that came back serves")
            #expect(try await clients[1].isAvailable(service: "echo"), "MMI answers for the set")
        }
        _ = brokers
    }

    @Test func aBrokerProcessFedGarbageKeepsServing() async throws {
        let endpoint = Ports.freeEndpoint()
        let broker = try ChildProcess(product: "broker", environment: environment(endpoint).merging(["BUS_MAX_MESSAGE_BYTES": "65536"]) { $1 })
        let worker = try ChildProcess(product: "echo-worker", environment: environment(endpoint))
        let client = try BusHarness.client(endpoint)
        try await BusHarness.with([client]) {
            #expect(await BusHarness.waitForService("echo", client: client))
            let context = try ZMQContextFactory.make()
            let rogue = try RawPeer(connectingTo: endpoint, identity: "rogue", context: context)
            for frames: [[UInt8]] in [[[0xFF]], [[], Array("MDPC01".utf8)], [[], Array("MDPW01".utf8), [0x02]],
                                      [[], Array("MDPC01".utf8), Array("echo".utf8), [UInt8](repeating: 0x41, count: 100_000)]] {
                try rogue.send(frames)
                #expect(try await rogue.receive(timeout: .seconds(3)) != nil, "no answer to \(frames.map(\.count))")
            }
            let reply = try await client.call(Repeat.self, .init(text: "after garbage"))
            #expect(reply.text == "after garbage")
            #expect(broker.isRunning && worker.isRunning)
        }
    }
}
}
