import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// The start of every Melon executable: settings (answering `--help`), logging, metrics, and one
/// ServiceGroup in which SIGTERM and SIGINT mean graceful shutdown.
public enum ProcessBootstrap {
    /// Reads the settings; prints help and exits for `--help`, prints the problem and exits 64 for a
    /// bad value. Sets up logging and metrics and returns the settings with a logger for the process.
    public static func start(
        process: String, summary: String, settings: [Setting],
        arguments: [String] = CommandLine.arguments
    ) -> (ProcessSettings, Logger) {
        let all = settings + [.logLevel, .logFormat]
        if arguments.contains("--help") || arguments.contains("-h") {
            print(ProcessSettings.help(process: process, summary: summary, settings: all))
            exit(0)
        }
        let parsed = ProcessSettings(process: process, settings: all, arguments: arguments)
        do {
            Observability.bootstrapLogging(format: try parsed.logFormat(), level: try parsed.logLevel())
            Observability.bootstrapMetrics()
        } catch {
            FileHandle.standardError.write(Data("\(process): \(error)\n".utf8))
            exit(64)
        }
        return (parsed, Logger(label: process))
    }

    /// Reads a configuration value that must be valid, exiting 64 with the reason when it is not.
    public static func require<T>(_ read: () throws -> T, process: String) -> T {
        do {
            return try read()
        } catch {
            FileHandle.standardError.write(Data("\(process): \(error)\n".utf8))
            exit(64)
        }
    }

    /// Runs `services` like `run(_:logger:)`, plus the probe endpoints (`/healthz`, `/readyz` checking
    /// `readiness`, `/metrics`) when HEALTH_PORT is set: the start of every process without an HTTP API.
    public static func run(
        _ services: [any Service], readiness: [(name: String, check: HealthServer.Check)], settings: ProcessSettings, logger: Logger
    ) async throws {
        let health = require({ try settings.healthServer(checks: readiness, logger: logger) }, process: settings.process)
        try await run(services + [health].compactMap { $0 }, logger: logger)
    }

    /// Runs `services` (in dependency order) until SIGTERM or SIGINT, then shuts them down in reverse.
    public static func run(_ services: [any Service], logger: Logger) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
    }
}
