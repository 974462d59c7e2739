import Bus
import Contracts
import Envelope
import Logging
import ServiceLifecycle
import Foundation
import Synchronization
import ZeroMQ

/// Runs in-process bus parts (a broker, echo workers, a client) for the length of a test body.
public enum BusHarness {
    /// Fast heartbeats so expiry tests take a fraction of a second per liveness period.
    public static let fastHeartbeat = Heartbeat(interval: .milliseconds(100), liveness: 3)

    /// A broker on a free loopback port, without the event proxy unless asked.
    public static func broker(heartbeat: Heartbeat = fastHeartbeat, events: Bool = false, configure: (inout BrokerConfiguration) -> Void = { _ in }) throws -> Broker {
        var configuration = BrokerConfiguration(
            endpoint: "tcp://127.0.0.1:*",
            eventsEndpoint: events ? "tcp://127.0.0.1:*" : nil,
            eventsPublishEndpoint: events ? "tcp://127.0.0.1:*" : nil,
            heartbeat: heartbeat)
        configure(&configuration)
        return try Broker(configuration: configuration, logger: logger("broker \(configuration.endpoint)"))
    }

    /// A client of `endpoint`.
    public static func client(_ endpoint: String, configure: (inout ClientConfiguration) -> Void = { _ in }) throws -> BusClient {
        var configuration = ClientConfiguration(endpoint: endpoint, processName: "test")
        configure(&configuration)
        return try BusClient(configuration: configuration, logger: logger("client \(endpoint)"))
    }

    /// An echo worker runtime with `workers` connections.
    public static func echoWorker(
        _ endpoint: String, workers: Int = 2, connections: Int = 2, heartbeat: Heartbeat = fastHeartbeat, gracePeriod: Duration = .seconds(5)
    ) throws -> WorkerRuntime {
        let configuration = WorkerConfiguration(endpoint: endpoint, workers: workers, connections: connections, heartbeat: heartbeat, gracePeriod: gracePeriod)
        return try WorkerRuntime(registry: EchoService.registry(), configuration: configuration, logger: logger("echo \(endpoint)"))
    }

    /// Runs `services` while `body` runs, then cancels them and waits for them to end. A service
    /// still running 30 s after the cancellation is named on standard error; one still running after
    /// `stopLimit` is left behind and the call throws `ServicesDidNotStop` naming it, so a teardown
    /// that hangs fails its test, saying which part ignored its cancellation, instead of holding the
    /// whole run until CI's limit (a stack's in-process service once did, and CI saw only idle threads).
    public static func with<T: Sendable>(
        _ services: [any Service], body: () async throws -> T
    ) async throws -> T {
        let running = StillRunning(services)
        let tasks = services.enumerated().map { index, service in
            Task {
                defer { running.ended(index) }
                try await service.run()
            }
        }
        func stop() async throws {
            for task in tasks { task.cancel() }
            let start = ContinuousClock.now
            var named = false
            while !running.isEmpty {
                let waited = start.duration(to: .now)
                if waited > .seconds(30), !named {
                    FileHandle.standardError.write(Data("BusHarness: still running 30 s after cancellation: \(running.names)\n".utf8))
                    named = true
                }
                if waited > stopLimit { throw ServicesDidNotStop(names: running.names, after: stopLimit) }
                // A pause of its own: the caller may be cancelled (its time limit), which ends its sleeps at once.
                await Task { try? await Task.sleep(for: .milliseconds(20)) }.value
            }
            // A service may end its cancellation by throwing it: that is an end, not a failure.
            for task in tasks {
                do { try await task.value } catch is CancellationError {}
            }
        }
        let result: T
        do {
            result = try await body()
        } catch {
            do { try await stop() } catch let stuck as ServicesDidNotStop {
                FileHandle.standardError.write(Data("BusHarness: \(stuck)\n".utf8))
            } catch {}
            throw error
        }
        try await stop()
        return result
    }

    /// How long `with` waits for its services to end once cancelled.
    public static let stopLimit = Duration.seconds(60)

    public struct ServicesDidNotStop: Error, CustomStringConvertible {
        public let names: [String]
        public let after: Duration
        public var description: String { "still running \(after) after cancellation, left behind: \(names)" }
    }

    /// Waits until the broker at `client`'s endpoint reports a worker of `service`; the timeout bounds
    /// a hang (with both cores busy, services in the test process took over 10 s to reach their broker).
    public static func waitForService(_ service: String, client: BusClient, timeout: Duration = .seconds(60)) async -> Bool {
        await eventually(timeout: timeout) { try await client.isAvailable(service: service) }
    }

    /// A logger at TEST_LOG_LEVEL (warning when unset).
    public static func logger(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = ProcessInfo.processInfo.environment["TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        return logger
    }
}

/// The services of `BusHarness.with` that have not ended yet, by name.
private final class StillRunning: Sendable {
    private let services: [any Service]
    private let running: Mutex<Set<Int>>

    init(_ services: [any Service]) {
        self.services = services
        running = Mutex(Set(services.indices))
    }

    func ended(_ index: Int) { _ = running.withLock { $0.remove(index) } }

    var isEmpty: Bool { running.withLock { $0.isEmpty } }

    var names: [String] { running.withLock { $0 }.sorted().map { String(describing: type(of: services[$0])) } }
}
