import Bus
import GatewayService
import MelonServices
import ServiceCatalog
import ServiceKit
import ServiceSupport

/// `melon`: the broker, every service and the gateway in one process, the local default and the
/// shape for small installs. The parts still talk over the bus (ZeroMQ over TCP on loopback), so
/// they behave exactly as when they run as separate processes.
@main
struct MelonApp {
    static func main() async throws {
        if CommandLine.arguments.dropFirst().first == "openapi" { return printOpenAPIDocument() }
        let services = MelonServices.all
        var settings: [Setting] = []
        for setting in Setting.brokerSettings + Setting.gatewaySettings + services.flatMap(\.processSettings)
        // No CURVE settings: the parts share one process, and the bus stays on this host.
        where setting != .healthPort && setting != .healthHost && !Setting.busCurveSettings.contains(setting) && setting != .busMembers
            && !settings.contains(setting) {
            settings.append(setting)
        }
        let (process, logger) = ProcessBootstrap.start(
            process: "melon", summary: "runs the broker, every service and the gateway in one process (`melon openapi` prints the API document).",
            settings: settings)
        func require<T>(_ read: () throws -> T) -> T { ProcessBootstrap.require(read, process: "melon") }

        let broker = require { try Broker(configuration: process.brokerConfiguration(rights: BusPolicy.rights(of:)), logger: logger) }
        let running = services.map { definition in
            require { try RunningService(definition, settings: process, logger: logger, maximumConnections: 4) }
        }
        let bus = require { try BusClient(configuration: process.clientConfiguration(), logger: logger) }
        let gateway = buildApplication(
            configuration: require(process.gatewayConfiguration),
            services: ServiceCatalog.services, bus: bus, authenticator: require { try process.tokenAuthenticator(bus: bus, logger: logger) },
            readinessChecks: running.flatMap { service in service.readiness.map { ("\(service.definition.name).\($0.name)", $0.check) } },
            logger: logger)
        try await ProcessBootstrap.run([broker] + running.flatMap(\.services) + [gateway], logger: logger)
    }

    /// `melon openapi`: the document `/openapi.json` serves, with the same gateway settings, as
    /// pretty-printed JSON on standard output; it needs no database, broker or network.
    static func printOpenAPIDocument() {
        var arguments = CommandLine.arguments
        arguments.remove(at: 1)
        let (process, _) = ProcessBootstrap.start(
            process: "melon openapi", summary: "prints the OpenAPI document the gateway serves at /openapi.json.",
            settings: Setting.gatewaySettings.filter { $0 != .healthPort && $0 != .healthHost }, arguments: arguments)
        let configuration = ProcessBootstrap.require(process.gatewayConfiguration, process: "melon openapi")
        print(openAPIDocument(services: ServiceCatalog.services, configuration: configuration).prettyPrinted())
    }
}
