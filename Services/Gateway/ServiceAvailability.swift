import Bus
import Envelope

/// Whether each service has a worker, asked of the broker through RFC 8 MMI. A positive answer is
/// trusted for a short while; a negative one is asked again next time, so a service that comes back
/// is used at once. With it a request to a service that is down fails in milliseconds with 503
/// instead of waiting in the broker's queue until its deadline.
actor ServiceAvailability {
    private let bus: BusClient
    private let ttl: Duration
    private var confirmed: [String: ContinuousClock.Instant] = [:]

    init(bus: BusClient, ttl: Duration) {
        self.bus = bus
        self.ttl = ttl
    }

    /// Throws `unavailable` when the broker knows no worker of `service`.
    func require(_ service: String) async throws(OperationError) {
        let now = ContinuousClock.now
        if let at = confirmed[service], now - at < ttl { return }
        guard try await bus.isAvailable(service: service) else {
            confirmed[service] = nil
            throw OperationError(.unavailable, "the \(service) service has no running worker; try again shortly")
        }
        confirmed[service] = now
    }

    /// Whether the broker answers at all, fresh: a lookup of a name no worker uses still gets an answer.
    func brokerAnswers(timeout: Duration) async -> Bool {
        (try? await bus.isAvailable(service: "gateway.readiness-probe", timeout: timeout)) != nil
    }

    /// Whether `service` has a worker, fresh; false when the broker did not answer in `timeout`.
    func hasWorker(_ service: String, timeout: Duration) async -> Bool {
        (try? await bus.isAvailable(service: service, timeout: timeout)) ?? false
    }
}
