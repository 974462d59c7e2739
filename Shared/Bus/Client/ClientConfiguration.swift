import Envelope

/// Settings of a `BusClient`.
public struct ClientConfiguration: Sendable {
    /// The brokers: one endpoint, several separated by commas, or a name that resolves to several
    /// (`BrokerEndpoints`).
    public var endpoint: String
    /// How often a name among the brokers' endpoints is resolved again.
    public var resolveInterval: Duration = .seconds(10)
    /// How those names become addresses.
    public var resolver: BrokerEndpoints.HostResolver = .system
    /// This process's name; requests carry `urn:melon:<name>` as their source.
    public var processName: String
    public var maxMessageBytes: Int
    /// First retry delay after an `unavailable` reply; doubled per attempt, with full jitter.
    public var retryBackoff: Duration
    /// The largest retry delay.
    public var retryBackoffMax: Duration
    /// CurveZMQ credentials; nil connects in the clear (one process on one host).
    public var credentials: BusCredentials?
    /// The operation types this client may call (a service's declared calls), refused here as
    /// `forbidden` otherwise, as the broker refuses them with CurveZMQ; nil: any.
    public var calls: Set<String>?

    public init(
        endpoint: String = "tcp://127.0.0.1:5555",
        processName: String,
        maxMessageBytes: Int = EnvelopeCodec.defaultMaxBytes,
        retryBackoff: Duration = .milliseconds(50),
        retryBackoffMax: Duration = .seconds(1),
        credentials: BusCredentials? = nil
    ) {
        self.credentials = credentials
        self.endpoint = endpoint
        self.processName = processName
        self.maxMessageBytes = maxMessageBytes
        self.retryBackoff = retryBackoff
        self.retryBackoffMax = retryBackoffMax
    }
}
