import Envelope

/// Settings of the Majordomo broker.
public struct BrokerConfiguration: Sendable {
    /// Where clients and workers connect (ROUTER).
    public var endpoint: String
    /// Where live-event subscribers connect (XPUB); nil turns the proxy off.
    public var eventsEndpoint: String?
    /// Where live-event publishers connect (XSUB); nil turns the proxy off.
    public var eventsPublishEndpoint: String?
    public var heartbeat: Heartbeat
    /// Requests waiting per service before new ones are refused as `unavailable`.
    public var queueLimit: Int
    /// Deadline for requests that carry no `expirytime` (foreign Majordomo clients).
    public var defaultDeadline: Duration
    /// Workers a request may be handed to before the broker gives up on it (a request that kills
    /// every worker it meets must not take the whole service down).
    public var maxDispatches: Int
    /// Larger request bodies are answered `too_large` without being queued.
    public var maxMessageBytes: Int
    /// How long a service with no worker and no queued request is remembered: then it is forgotten,
    /// so names that come and go do not fill the broker's table of services for good.
    public var serviceRetention: Duration
    /// CurveZMQ on every socket, admitting the listed members with their rights; nil: no CURVE
    /// (one process on one host, as `melon` runs).
    public var access: BusAccess?

    public init(
        endpoint: String = "tcp://127.0.0.1:5555",
        eventsEndpoint: String? = "tcp://127.0.0.1:5556",
        eventsPublishEndpoint: String? = "tcp://127.0.0.1:5557",
        heartbeat: Heartbeat = Heartbeat(),
        queueLimit: Int = 10_000,
        defaultDeadline: Duration = .seconds(10),
        maxDispatches: Int = 3,
        maxMessageBytes: Int = EnvelopeCodec.defaultMaxBytes,
        serviceRetention: Duration = .seconds(60),
        access: BusAccess? = nil
    ) {
        self.access = access
        self.endpoint = endpoint
        self.eventsEndpoint = eventsEndpoint
        self.eventsPublishEndpoint = eventsPublishEndpoint
        self.heartbeat = heartbeat
        self.queueLimit = queueLimit
        self.defaultDeadline = defaultDeadline
        self.maxDispatches = maxDispatches
        self.maxMessageBytes = maxMessageBytes
        self.serviceRetention = serviceRetention
    }
}
