import Bus
import Foundation
import Logging
import PostgresSupport
import ServiceKit
import ServiceSupport

extension ServiceDefinition {
    /// The service's handlers as its process builds them, configured by `environment` (settings by
    /// their environment names) on `database` (migrated here), with `clock` for today: the provider
    /// side of the contract tests. Required settings not in `environment` take their local values.
    public func provider(on database: Database?, environment: [String: String] = [:], clock: ServiceClock = .system) async throws
        -> OperationRegistry
    {
        try await parts(on: database, environment: environment, clock: clock).handlers.finished()
    }

    /// Every part of the service (handlers, jobs, long-running parts) as its process builds them, on
    /// `database` (migrated here), for tests that run a job's round or a queue's round themselves.
    public func parts(on database: Database?, environment: [String: String] = [:], clock: ServiceClock = .system) async throws -> ServiceParts {
        if let database { try await database.migrate(migrations()) }
        // A required setting not given takes its local value (a random key is a new one each time).
        let settings = ProcessSettings(process: name, settings: processSettings, arguments: [], environment: localEnvironment().merging(environment) { $1 })
        return try make(ServiceEnvironment(settings: settings, database: database, bus: nil, logger: BusHarness.logger(name), clock: clock))
    }
}
