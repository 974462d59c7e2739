import Bus
import Envelope
import Foundation
import TestSupport

/// `bus-benchmark --brokers`: throughput with 1, 2 and 3 brokers as separate processes (two echo
/// workers on every broker, one client spreading its calls over them), and what a broker's death
/// costs: the p99 of the calls that end in the two seconds after one of three brokers is killed with
/// SIGKILL (those it held among them, resent to the others), against the p99 of the two seconds before.
enum BrokerSetBenchmark {
    /// `count` brokers, two echo workers on all of them, a client of the set.
    struct Set {
        var brokers: [ChildProcess]
        let endpoints: [String]
        let workers: [ChildProcess]
        let client: BusClient
        let clientTask: Task<Void, any Error>

        init(count: Int, workers: Int) throws {
            endpoints = (0..<count).map { _ in Ports.freeEndpoint() }
            let list = endpoints.joined(separator: ",")
            let environment = ["EVENTS_ENDPOINT": "", "EVENTS_PUBLISH_ENDPOINT": "", "LOG_LEVEL": "warning", "BUS_CURVE": "off", "HEARTBEAT_INTERVAL": "250"]
            brokers = try endpoints.enumerated().map { index, endpoint in
                try ChildProcess(product: "broker", environment: environment.merging(["BROKER_ENDPOINT": endpoint]) { $1 }, name: "broker-set-\(count)-\(index)")
            }
            self.workers = try (0..<2).map { index in
                try ChildProcess(product: "echo-worker", environment: environment.merging(["BROKER_ENDPOINTS": list, "WORKERS": "\(workers)"]) { $1 },
                                 name: "echo-set-\(count)-\(index)")
            }
            let client = try BusClient(configuration: ClientConfiguration(endpoint: list, processName: "bus-benchmark"))
            self.client = client
            clientTask = Task { try await client.run() }
        }

        /// Every broker has a worker: asked of each broker alone.
        func ready() async throws -> Bool {
            for endpoint in endpoints {
                let probe = try BusClient(configuration: ClientConfiguration(endpoint: endpoint, processName: "bus-benchmark"))
                let task = Task { try await probe.run() }
                defer { task.cancel() }
                guard await eventually(timeout: .seconds(15), { try await probe.isAvailable(service: "echo") }) else { return false }
            }
            return true
        }

        func stop() {
            clientTask.cancel()
            for worker in workers { worker.signalTerminate() }
            for broker in brokers { broker.signalTerminate() }
        }
    }

    static func run(runs: Int, requests: Int, workers: Int) async throws {
        print("broker sets: \(requests) calls per measurement with 64 in flight, \(runs) runs, 2 echo workers (\(workers) at once each) on every broker")
        print("measurement                                                 req/s      p50 us     p99 us")
        var table: [Int: [BusBenchmark.Result]] = [:]
        for run in 1...runs {
            for count in 1...3 {
                let set = try Set(count: count, workers: workers)
                defer { set.stop() }
                guard try await set.ready() else { throw BusBenchmark.Failure(description: "the echo workers did not reach every one of \(count) brokers") }
                _ = try await BusBenchmark.measureBus(client: set.client, inFlight: 64, requests: requests / 4)
                let result = try await BusBenchmark.measureBus(client: set.client, inFlight: 64, requests: requests)
                table[count, default: []].append(result)
                print(result.row("run \(run): \(count) broker\(count == 1 ? "" : "s")"))
            }
        }
        for count in 1...3 { print(BusBenchmark.Result.median(table[count]!).row("median: \(count) broker\(count == 1 ? "" : "s")")) }

        print("\na broker's death: 3 brokers, 64 calls in flight for 6 s, one broker killed (SIGKILL) at 3 s")
        print("run   p99 before (ms)   p99 after (ms)   max after (ms)   calls failed")
        var ratios: [Double] = []
        for run in 1...runs {
            var set = try Set(count: 3, workers: workers)
            defer { set.stop() }
            guard try await set.ready() else { throw BusBenchmark.Failure(description: "the echo workers did not reach every broker") }
            let clock = ContinuousClock(), start = clock.now
            let victim = set.brokers[0]
            let killer = Task {
                try await Task.sleep(for: .seconds(3))
                victim.kill()
                return clock.now
            }
            let client = set.client
            let calls = await withTaskGroup(of: [(ended: ContinuousClock.Instant, took: Duration?)].self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        var mine: [(ended: ContinuousClock.Instant, took: Duration?)] = []
                        while start.duration(to: clock.now) < .seconds(6) {
                            let sent = clock.now
                            let reply = try? await client.call(Echo.Message.Repeat.self, .init(text: BusBenchmark.text), options: CallOptions(timeout: .seconds(10)))
                            let ended = clock.now
                            mine.append((ended, reply?.text == BusBenchmark.text ? sent.duration(to: ended) : nil))
                        }
                        return mine
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
            let killed = try await killer.value
            set.brokers.removeFirst()
            func p99(_ durations: [Duration]) -> Double {
                let sorted = durations.map { Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15 }.sorted()
                return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
            }
            let before = calls.filter { $0.ended < killed && killed.duration(to: $0.ended) > .seconds(-2) }.compactMap(\.took)
            let after = calls.filter { $0.ended >= killed && killed.duration(to: $0.ended) < .seconds(2) }.compactMap(\.took)
            let failed = calls.filter { $0.took == nil }.count
            let maxAfter = after.map { Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15 }.max() ?? 0
            ratios.append(p99(after) / max(0.001, p99(before)))
            print(String(format: "%3d   %15.1f   %14.1f   %14.1f   %12d", run, p99(before), p99(after), maxAfter, failed))
        }
        print(String(format: "median ratio of p99 after to before: %.1f", ratios.sorted()[ratios.count / 2]))
    }
}
