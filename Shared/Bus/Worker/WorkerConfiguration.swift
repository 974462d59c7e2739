/// Settings of a service's worker runtime.
public struct WorkerConfiguration: Sendable {
    /// The broker endpoint to connect to.
    public var endpoint: String
    /// Worker connections, and so requests served at once, by this process (`WORKERS`).
    public var workers: Int
    public var heartbeat: Heartbeat
    /// How long in-flight requests may take to finish after SIGTERM before they are cancelled.
    public var gracePeriod: Duration
    /// CurveZMQ credentials; nil connects in the clear (one process on one host).
    public var credentials: BusCredentials?

    public init(
        endpoint: String = "tcp://127.0.0.1:5555",
        workers: Int = 16,
        heartbeat: Heartbeat = Heartbeat(),
        gracePeriod: Duration = .seconds(20),
        credentials: BusCredentials? = nil
    ) {
        self.credentials = credentials
        precondition(workers > 0, "a worker runtime needs at least one connection")
        self.endpoint = endpoint
        self.workers = workers
        self.heartbeat = heartbeat
        self.gracePeriod = gracePeriod
    }
}
