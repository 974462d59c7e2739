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

    /// Runs `services` in a task group while `body` runs, then cancels them and waits for them to end.
    /// A service still running 30 s after the cancellation is named on standard error, so a teardown
    /// that hangs says which part ignores its cancellation.
    public static func with<T: Sendable>(
        _ services: [any Service], body: () async throws -> T
    ) async throws -> T {
        let running = StillRunning(services)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, service) in services.enumerated() {
                group.addTask {
                    defer { running.ended(index) }
                    try await service.run()
                }
            }
            func stop() async throws {
                group.cancelAll()
                let watchdog = Task {
                    try await Task.sleep(for: .seconds(30))
                    FileHandle.standardError.write(Data("BusHarness: still running 30 s after cancellation: \(running.names)\n".utf8))
                }
                defer { watchdog.cancel() }
                try await group.waitForAll()
            }
            do {
                let result = try await body()
                try await stop()
                return result
            } catch {
                try? await stop()
                throw error
            }
        }
    }

    /// Waits until the broker at `client`'s endpoint reports a worker of `service`.
    public static func waitForService(_ service: String, client: BusClient, timeout: Duration = .seconds(10)) async -> Bool {
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

    var names: [String] { running.withLock { $0 }.sorted().map { String(describing: type(of: services[$0])) } }
}
