import AuthService
import Bus
import PostgresSupport
import ServiceSupport

/// `auth`: accounts, email verification, sessions and token-signing keys. Run as many as needed.
@main
struct AuthApp {
    static func main() async throws {
        let (settings, logger) = ProcessBootstrap.start(
            process: "auth", summary: "accounts, email verification, sessions and access-token keys.",
            settings: [.brokerEndpoint, .workers, .heartbeatInterval, .heartbeatLiveness, .gracePeriod, .busMaxMessageBytes, .healthPort, .healthHost]
                + Setting.authSettings)
        func require<T>(_ read: () throws -> T) -> T { ProcessBootstrap.require(read, process: "auth") }
        let bus = require { try BusClient(configuration: settings.clientConfiguration(), logger: logger) }
        let service = require {
            try AuthWorker(
                configuration: settings.authConfiguration(), worker: settings.workerConfiguration(),
                database: Database(url: DatabaseURL(settings.databaseURL(service: "auth")), schema: AuthWorker.schema, maximumConnections: 8, logger: logger),
                bus: bus, logger: logger)
        }
        try await ProcessBootstrap.run([bus] + require(service.services), readiness: service.readiness, settings: settings, logger: logger)
    }
}
