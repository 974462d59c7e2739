/// Majordomo heartbeat settings, the same on both ends of a worker connection.
public struct Heartbeat: Sendable, Equatable {
    /// How often each side sends a heartbeat when it has sent nothing else.
    public var interval: Duration
    /// How many intervals of silence mean the peer is gone.
    public var liveness: Int

    public init(interval: Duration = .seconds(1), liveness: Int = 3) {
        self.interval = interval
        self.liveness = liveness
    }

    /// Silence longer than this ends a connection.
    public var expiry: Duration { interval * liveness }
}
