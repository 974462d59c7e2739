import Bus
import GatewayService
import ServiceCatalog
import ServiceSupport

/// `gateway`: the HTTP API in front of the bus.
@main
struct GatewayApp {
    static func main() async throws {
        let (settings, logger) = ProcessBootstrap.start(
            process: "gateway", summary: "serves the HTTP API and forwards each request to its service over the bus.",
            settings: Setting.gatewaySettings)
        var configuration = ProcessBootstrap.require(settings.gatewayConfiguration, process: "gateway")
        let bus = ProcessBootstrap.require({ try BusClient(configuration: settings.clientConfiguration(), logger: logger) }, process: "gateway")
        let authenticator = ProcessBootstrap.require({ try settings.tokenAuthenticator(bus: bus, logger: logger) }, process: "gateway")
        // With HEALTH_PORT the probes and metrics are served there, away from clients.
        let checks = gatewayReadinessChecks(services: ServiceCatalog.services, bus: bus, configuration: configuration)
        let health = ProcessBootstrap.require({ try settings.healthServer(checks: checks, logger: logger) }, process: "gateway")
        configuration.probesOnPublicPort = health == nil
        let live = ProcessBootstrap.require(
            { try settings.liveSockets(services: ServiceCatalog.services, bus: bus, authenticator: authenticator, logger: logger) }, process: "gateway")
        let app = buildApplication(
            configuration: configuration, services: ServiceCatalog.services, bus: bus, authenticator: authenticator, live: live, logger: logger)
        try await ProcessBootstrap.run([app] + [health].compactMap { $0 }, logger: logger)
    }
}
