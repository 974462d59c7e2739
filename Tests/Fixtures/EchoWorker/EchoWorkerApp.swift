import Bus
import ServiceSupport
import TestSupport

/// `echo-worker`: serves the `echo` fixture service, for tests and the bus benchmark.
@main
struct EchoWorkerApp {
    static func main() async throws {
        let (settings, logger) = ProcessBootstrap.start(
            process: "echo-worker",
            summary: "serves echo.message.repeat.v1 (a test and benchmark fixture).",
            settings: [.brokerEndpoint, .workers, .heartbeatInterval, .heartbeatLiveness, .gracePeriod, .busMaxMessageBytes, .healthPort, .healthHost])
        let configuration = ProcessBootstrap.require(settings.workerConfiguration, process: "echo-worker")
        let worker = ProcessBootstrap.require(
            { try WorkerRuntime(registry: EchoService.registry(), configuration: configuration, logger: logger) },
            process: "echo-worker")
        try await ProcessBootstrap.run([worker], readiness: [("broker", { worker.health.isConnected })], settings: settings, logger: logger)
    }
}
