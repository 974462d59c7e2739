import Bus
import GatewayService
import PostgresSupport
import ServiceSupport

/// `melon`: the broker, every service and the gateway in one process, the local default and the
/// shape for small installs. The parts still talk over the bus (ZeroMQ over TCP on loopback), so
/// they behave exactly as when they run as separate processes.
@main
struct MelonApp {
    static func main() async throws {
        let settings = Setting.brokerSettings.filter { $0 != .healthPort && $0 != .healthHost }
            + Setting.gatewaySettings.filter { !Setting.brokerSettings.contains($0) } + [.databaseURL]
        let (process, logger) = ProcessBootstrap.start(
            process: "melon", summary: "runs the broker, every service and the gateway in one process.", settings: settings)
        let broker = ProcessBootstrap.require({ try Broker(configuration: process.brokerConfiguration(), logger: logger) }, process: "melon")
        let database = ProcessBootstrap.require({
            try Database(url: DatabaseURL(process.requiredString(.databaseURL)), schema: "public", maximumConnections: 2, logger: logger)
        }, process: "melon")
        let bus = ProcessBootstrap.require({ try BusClient(configuration: process.clientConfiguration(), logger: logger) }, process: "melon")
        let gateway = buildApplication(
            configuration: ProcessBootstrap.require(process.gatewayConfiguration, process: "melon"),
            routes: GatewayRoutes.all, bus: bus,
            readinessChecks: [("database", { await database.isReachable() })], logger: logger)
        // Each product service's worker runtime joins this list as it arrives (see ARCHITECTURE.md).
        try await ProcessBootstrap.run([database, broker, gateway], logger: logger)
    }
}
