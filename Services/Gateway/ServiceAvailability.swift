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

    /// A fresh answer for each of `services` (nil when the broker did not answer in `timeout`).
    func check(_ services: [String], timeout: Duration) async -> [String: Bool?] {
        var result: [String: Bool?] = [:]
        for service in services {
            result[service] = try? await bus.isAvailable(service: service, timeout: timeout)
        }
        return result
    }
}
