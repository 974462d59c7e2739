import Bus
import Contracts
import Envelope
import Foundation
import Synchronization
import Testing
import TestSupport

/// Several brokers behind one name, as a Kubernetes headless Service gives them (issue 42): workers and
/// clients resolve the name again and follow brokers that come and go. The brokers listen on two
/// loopback addresses with one port, as pods do; the name resolves through a table the test changes
/// (the only stand-in: DNS).
@Suite(.timeLimit(.minutes(2))) struct BrokerSetTests {
    typealias Repeat = Echo.Message.Repeat

    @Test func workersAndClientsFollowTheBrokersBehindAName() async throws {
        let port = Ports.free()
        let first = try BusHarness.broker { $0.endpoint = "tcp://127.0.0.2:\(port)" }
        let second = try BusHarness.broker { $0.endpoint = "tcp://127.0.0.3:\(port)" }
        let table = Mutex(["127.0.0.2"])
        let resolver = BrokerEndpoints.HostResolver { host in host == "brokers.test" ? table.withLock { $0 } : [] }
        let name = "tcp://brokers.test:\(port)"
        var configuration = WorkerConfiguration(endpoint: name, workers: 4, connections: 1, heartbeat: BusHarness.fastHeartbeat, gracePeriod: .seconds(5))
        configuration.resolveInterval = .milliseconds(100)
        configuration.resolver = resolver
        let worker = try WorkerRuntime(registry: EchoService.registry(), configuration: configuration, logger: BusHarness.logger("echo"))
        let client = try BusHarness.client(name) {
            $0.resolveInterval = .milliseconds(100)
            $0.resolver = resolver
        }
        let probes = [try BusHarness.client(first.endpoint), try BusHarness.client(second.endpoint)]
        try await BusHarness.with([first, second, worker, client] + probes) {
            #expect(await BusHarness.waitForService("echo", client: probes[0]))
            let reply = try await client.call(Repeat.self, .init(text: "one broker"))
            #expect(reply.text == "one broker")
            let secondHasIt = try await probes[1].isAvailable(service: "echo")
            #expect(!secondHasIt, "the second broker is not in the set yet")

            table.withLock { $0 = ["127.0.0.2", "127.0.0.3"] }
            #expect(await BusHarness.waitForService("echo", client: probes[1]), "the worker joined the broker that appeared")

            table.withLock { $0 = ["127.0.0.3"] }
            #expect(await eventually { try await !probes[0].isAvailable(service: "echo") }, "the worker left the broker that went")
            // A call sent to the broker that went would wait there for a worker until its deadline: once
            // the client follows the name, every call goes to the second one.
            let options = CallOptions(timeout: .seconds(1))
            #expect(await eventually {
                for index in 0..<20 {
                    guard (try? await client.call(Repeat.self, .init(text: "call \(index)"), options: options).text) == "call \(index)" else { return false }
                }
                return true
            }, "the client calls the brokers the name gives now")

            // The name stops resolving for a while (a DNS hiccup): the brokers known are kept. Five
            // lookups fail before the check (room for the bug, not a wait for an event).
            table.withLock { $0 = [] }
            try await Task.sleep(for: .milliseconds(500))
            let stillServed = try await probes[1].isAvailable(service: "echo")
            #expect(stillServed, "the worker kept its broker")
            let kept = try await client.call(Repeat.self, .init(text: "kept"), options: options)
            #expect(kept.text == "kept", "the client kept its broker")
        }
    }
}
