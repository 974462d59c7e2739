import Synchronization

/// Whether a worker process is in touch with the broker, for its readiness probe: written by the
/// I/O thread, read by the health endpoint.
public final class WorkerHealth: Sendable {
    /// Connections that heard from the broker since they last (re)connected.
    private let confirmed = Atomic<Int>(0)

    public init() {}

    /// True when at least one worker connection has heard from the broker since it connected.
    public var isConnected: Bool { confirmed.load(ordering: .relaxed) > 0 }

    func connectionConfirmed() { confirmed.add(1, ordering: .relaxed) }
    func connectionLost() { confirmed.subtract(1, ordering: .relaxed) }
}
