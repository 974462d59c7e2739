import Bus
import Foundation
import Logging
import PostgresSupport
import ServiceKit
import ServiceSupport

extension ServiceDefinition {
    /// The service's handlers as its process builds them, configured by `environment` (settings by
    /// their environment names) on `database` (migrated here), with `clock` for today: the provider
    /// side of the contract tests.
    public func provider(on database: Database?, environment: [String: String] = [:], clock: ServiceClock = .system) async throws
        -> OperationRegistry
    {
        if let database { try await database.migrate(migrations()) }
        let settings = ProcessSettings(process: name, settings: processSettings, arguments: [], environment: environment)
        let parts = try make(ServiceEnvironment(settings: settings, database: database, bus: nil, logger: BusHarness.logger(name), clock: clock))
        return parts.handlers.finished()
    }
}
