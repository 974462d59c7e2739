import Bus
import GatewayService
import MelonServices
import ServiceCatalog
import ServiceKit
import ServiceSupport
import ZeroMQ

/// `melon`: the broker, every service and the gateway in one process, the local default and the
/// shape for small installs. The parts still talk over the bus, so they behave exactly as when they
/// run as separate processes, over inproc endpoints in one shared libzmq context, which takes
/// libzmq's I/O threads out of every hop. Its bus never leaves the process: it has no CurveZMQ, so a
/// tcp or ipc endpoint would let any local process call any operation as any account; melon refuses
/// one. To spread the parts over processes, run `broker` and the services with CurveZMQ.
@main
struct MelonApp {
    static func main() async throws {
        if CommandLine.arguments.dropFirst().first == "openapi" { return printOpenAPIDocument() }
        let services = MelonServices.all
        var settings: [Setting] = [
            Setting.brokerEndpoint.defaulting(to: "inproc://melon-bus"), Setting.eventsEndpoint.defaulting(to: "inproc://melon-events"),
            Setting.eventsPublishEndpoint.defaulting(to: "inproc://melon-events-publish"),
        ]
        for setting in Setting.brokerSettings + Setting.gatewaySettings + services.flatMap(\.processSettings)
        // No CURVE settings: the parts share one process, and the bus stays on this host.
        where setting != .healthPort && setting != .healthHost && !Setting.busCurveSettings.contains(setting) && setting != .busMembers
            && !settings.contains(where: { $0.key == setting.key }) {
            settings.append(setting)
        }
        let (process, logger) = ProcessBootstrap.start(
            process: "melon", summary: "runs the broker, every service and the gateway in one process (`melon openapi` prints the API document).",
            settings: settings)
        func require<T>(_ read: () throws -> T) -> T { ProcessBootstrap.require(read, process: "melon") }
        require { try process.requireInProcessBus() }

        // One context for every part: inproc endpoints only connect within a context.
        let context = require { try ZMQContext() }
        let broker = require { try Broker(configuration: process.brokerConfiguration(rights: BusPolicy.rights(of:)), context: context, logger: logger) }
        // Five connections per service: four for its work and one its notice listener holds.
        let running = services.map { definition in
            require { try RunningService(definition, settings: process, logger: logger, maximumConnections: 5, context: context) }
        }
        let bus = require { try BusClient(configuration: process.clientConfiguration(), context: context, logger: logger) }
        let authenticator = require { try process.tokenAuthenticator(bus: bus, context: context, logger: logger) }
        let gateway = buildApplication(
            configuration: require(process.gatewayConfiguration),
            services: ServiceCatalog.services, bus: bus, authenticator: authenticator,
            live: require { try process.liveSockets(services: ServiceCatalog.services, bus: bus, authenticator: authenticator, context: context, logger: logger) },
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

extension ProcessSettings {
    /// Refuses bus endpoints other processes could reach: melon's bus runs without CurveZMQ.
    func requireInProcessBus() throws {
        for setting in [Setting.brokerEndpoint, .brokerEndpoints, .eventsEndpoint, .eventsPublishEndpoint] {
            guard let endpoint = string(setting), !endpoint.isEmpty, !endpoint.hasPrefix("inproc://") else { continue }
            throw InvalidValue(
                setting: setting, value: endpoint,
                expected: "an inproc:// endpoint: melon's bus has no CurveZMQ, so any process reaching a tcp or ipc endpoint could act as any account "
                    + "(run broker and the services as separate processes, with BUS_CURVE, to spread them over hosts)")
        }
    }
}
