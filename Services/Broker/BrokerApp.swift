import Bus
import ServiceSupport

/// `broker`: the Majordomo broker every Melon process connects to, and the live-event proxy.
@main
struct BrokerApp {
    static func main() async throws {
        let (settings, logger) = ProcessBootstrap.start(
            process: "broker",
            summary: "routes bus requests to service workers (ZeroMQ RFC 7 Majordomo, RFC 8 MMI) and proxies live events.",
            settings: Setting.brokerSettings)
        let configuration = ProcessBootstrap.require(settings.brokerConfiguration, process: "broker")
        let broker = ProcessBootstrap.require({ try Broker(configuration: configuration, logger: logger) }, process: "broker")
        try await ProcessBootstrap.run([broker], readiness: [], settings: settings, logger: logger)
    }
}
