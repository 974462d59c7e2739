import Bus
import Foundation
import Logging
import PostgresSupport
import ServiceSupport

/// What a service's parts are built from.
public struct ServiceEnvironment: Sendable {
    public let settings: ProcessSettings
    /// The service's database, when its definition names a schema.
    public let database: Database?
    /// The process's client for calls to other services.
    public let bus: BusClient?
    /// The process's live-event publisher, when the definition publishes events and the proxy is
    /// configured (EVENTS_PUBLISH_ENDPOINT not empty).
    public let events: EventPublisher?
    public let logger: Logger
    /// Today, for anything that depends on the date (tests pin it).
    public let clock: ServiceClock

    public init(
        settings: ProcessSettings, database: Database?, bus: BusClient?, events: EventPublisher? = nil, logger: Logger, clock: ServiceClock = .system
    ) {
        self.settings = settings
        self.database = database
        self.bus = bus
        self.events = events
        self.logger = logger
        self.clock = clock
    }

    /// The database; a definition with a schema always has one.
    public func requireDatabase() -> Database {
        guard let database else { preconditionFailure("a service that uses the database names its schema in its definition") }
        return database
    }
}
