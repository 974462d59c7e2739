/// Settings of a service's worker runtime.
public struct WorkerConfiguration: Sendable {
    /// The brokers: one endpoint, several separated by commas, or a name that resolves to several
    /// (`BrokerEndpoints`). The process connects to every one.
    public var endpoint: String
    /// How often a name among the brokers' endpoints is resolved again.
    public var resolveInterval: Duration = .seconds(10)
    /// How those names become addresses.
    public var resolver: BrokerEndpoints.HostResolver = .system
    /// Requests served at once by this process (`WORKERS`).
    public var workers: Int
    /// The connections to each broker its share of those requests is spread over
    /// (`WORKER_CONNECTIONS`, at most the share). With fewer connections than requests each carries several at once (the READY
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
    /// How many requests each connection takes with one broker: `workers` spread over `connections`
    /// as evenly as they go (the first ones take one more when they do not divide).
    public var capacities: [Int] { Self.spread(workers, over: connections) }

    /// The connections for `brokers`: `workers` split among the brokers as evenly as they go, each
    /// broker's share spread over at most `connections` connections. Every broker gets at least one
    /// (with fewer workers than brokers, one each): clients send calls to every broker, and a broker
    /// no process serves would hold its share of them until their deadlines.
    public func plan(_ brokers: [String]) -> [(endpoint: String, capacity: Int)] {
        let shares = workers >= brokers.count ? Self.spread(workers, over: brokers.count) : Array(repeating: 1, count: brokers.count)
        return zip(brokers, shares).flatMap { broker, share in Self.spread(share, over: connections).map { (broker, $0) } }
    }

    /// `total` in `parts` as even as they go, the first ones one more; no part is empty.
    static func spread(_ total: Int, over parts: Int) -> [Int] {
        let count = min(max(1, parts), total)
        return (0..<count).map { total / count + ($0 < total % count ? 1 : 0) }
    }
}
