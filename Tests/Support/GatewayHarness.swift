import AuthContract
import Bus
import Contracts
import Foundation
import GatewayService
import Logging
import ServiceSupport
import ServiceLifecycle
import Synchronization

/// Runs the gateway application in the test process on a free port.
public enum GatewayHarness {
    /// The gateway over the routes of `operations` for a broker at `endpoint`, and where it will listen
    /// once running. With `verifyTokens`, access tokens are verified against the auth service's keys
    /// (default settings) and refused once their session ended, as the broker's live events at
    /// `events` (its XPUB) announce and as auth lists them.
    public static func gateway(
        _ endpoint: String, services: [any ServiceContract.Type] = [Echo.self], verifyTokens: Bool = false, events: String? = nil,
        keys: BusKeys? = nil, clock: ServiceClock = .system, configure: (inout GatewayConfiguration) -> Void = { _ in }
    ) throws -> (service: any Service, address: GatewayAddress) {
        Observability.bootstrapMetrics()
        // The gateway's settings as declared: the bus in the clear, or with `keys` as the member `gateway`.
        let settings = ProcessSettings.declared(
            Setting.gatewaySettings, process: "gateway",
            environment: ["HTTP_PORT": "0", "EVENTS_ENDPOINT": events ?? ""].merging(keys?.environment("gateway") ?? ["BUS_CURVE": "off"]) { $1 })
        var configuration = try settings.gatewayConfiguration()
        configure(&configuration)
        let bus = try BusHarness.client(endpoint) { $0.credentials = keys?.credentials("gateway") }
        let address = GatewayAddress()
        let logger = BusHarness.logger("gateway")
        let authenticator = verifyTokens ? try settings.tokenAuthenticator(bus: bus, logger: logger, clock: clock) : nil
        let app = buildApplication(
            configuration: configuration, services: services, bus: bus, authenticator: authenticator, logger: logger,
            onServerRunning: { port in address.set(port) })
        return (app, address)
    }
}

/// The port a gateway under test bound, known once it runs.
public final class GatewayAddress: Sendable {
    private let port = Mutex<Int?>(nil)

    func set(_ value: Int) { port.withLock { $0 = value } }

    /// A client of the gateway, once it listens (waits up to 10 s).
    public func client() async throws -> HTTPTestClient {
        for _ in 0..<1000 {
            if let port = port.withLock({ $0 }) { return HTTPTestClient(base: URL(string: "http://127.0.0.1:\(port)")!) }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CancellationError()
    }
}
