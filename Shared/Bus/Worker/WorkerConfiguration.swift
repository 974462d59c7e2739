/// Settings of a service's worker runtime.
public struct WorkerConfiguration: Sendable {
    /// The broker endpoint to connect to.
    public var endpoint: String
    /// Requests served at once by this process (`WORKERS`).
    public var workers: Int
    /// The connections to the broker those requests are spread over (`WORKER_CONNECTIONS`, at most
    /// `workers`). With fewer connections than requests each carries several at once (the READY
    /// capacity of `MDP`), and a burst crosses the wire in fewer, larger writes: over tcp, 64 calls in
    /// flight went 20 to 40% faster on 2 connections than on 16 (`Benchmarks/README.md`).
    public var connections: Int
    public var heartbeat: Heartbeat
    /// How long in-flight requests may take to finish after SIGTERM before they are cancelled.
    public var gracePeriod: Duration
    /// CurveZMQ credentials; nil connects in the clear (one process on one host).
    public var credentials: BusCredentials?

    public init(
        endpoint: String = "tcp://127.0.0.1:5555",
        workers: Int = 16,
        connections: Int = 2,
        heartbeat: Heartbeat = Heartbeat(),
        gracePeriod: Duration = .seconds(20),
        credentials: BusCredentials? = nil
    ) {
        self.credentials = credentials
        precondition(workers > 0, "a worker runtime needs to serve at least one request at a time")
        self.endpoint = endpoint
        self.workers = workers
        self.connections = min(workers, max(1, connections))
        self.heartbeat = heartbeat
        self.gracePeriod = gracePeriod
    }
}

extension WorkerConfiguration {
    /// How many requests each connection takes: `workers` spread over `connections` as evenly as
    /// they go (the first ones take one more when they do not divide).
    public var capacities: [Int] {
        let count = min(connections, workers)
        return (0..<count).map { workers / count + ($0 < workers % count ? 1 : 0) }
    }
}
