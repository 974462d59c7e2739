import Bus
import Envelope
import Foundation
@testable import NotificationsService
import PostgresNIO
import PostgresSupport
import ServiceKit
import ServiceSupport
import Synchronization
import TestSupport

/// The notifications service built from its definition on a fresh schema, with a clock the test
/// moves, its handlers called as the bus calls them, its delivery loop and jobs run a round at a
/// time, and pushes sent over real HTTP/2 to a local APNs server.
final class NotificationsHarness: Sendable {
    let database: Database
    let server: APNsTestServer
    let registry: OperationRegistry
    let delivery: PushDelivery
    let jobs: [PeriodicJob]
    private let clock: Clock

    final class Clock: Sendable {
        let date: Mutex<Date>
        init(_ date: Date) { self.date = Mutex(date) }
    }

    static let account = UUID()
    static let session = UUID()

    private init(database: Database, server: APNsTestServer, clock: Clock, parts: ServiceParts) {
        self.database = database
        self.server = server
        self.clock = clock
        registry = parts.handlers.finished()
        delivery = parts.services.compactMap { $0 as? PushDelivery }.first!
        jobs = parts.jobs
    }

    /// Runs `body` with a harness whose clock starts at `start`. `sharing` another harness: a second
    /// instance of the service, with its own connections, on the same schema and APNs server.
    static func with(start: Date = Date(), environment: [String: String] = [:], sharing other: NotificationsHarness? = nil,
                     _ body: (NotificationsHarness) async throws -> Void) async throws {
        let server: APNsTestServer
        if let other { server = other.server } else { server = try await APNsTestServer() }
        let database = try other.map { try TestDatabase.make(schema: $0.database.schema) } ?? TestDatabase.make()
        let clock = Clock(start)
        try await BusHarness.with([database]) {
            let parts = try await ServiceDefinition.notifications.parts(on: database, environment: [
                "APNS_KEY_FILE": server.keyFile, "APNS_KEY_ID": APNsTestServer.keyID, "APNS_TEAM_ID": APNsTestServer.teamID,
                "APNS_TOPICS": APNsTestServer.topics, "APNS_PRODUCTION_URL": server.url, "APNS_SANDBOX_URL": server.url,
                "APNS_CA_FILE": server.certificateFile, "PUSH_RETRY_FIRST": "10", "PUSH_RETRY_MAX": "20", "PUSH_SETUP_HOLD": "60000",
            ].merging(environment) { $1 }, clock: ServiceClock { clock.date.withLock { $0 } })
            let harness = NotificationsHarness(database: database, server: server, clock: clock, parts: parts)
            do {
                try await body(harness)
            } catch {
                await harness.delivery.shutdown()
                throw error
            }
            await harness.delivery.shutdown()
        }
        if other == nil { await server.shutdown() }
    }

    var now: Date { clock.date.withLock { $0 } }
    func advance(to date: Date) { clock.date.withLock { $0 = date } }

    /// Calls `Op` as the bus would: as the signed-in example account (in `app`), or as `source` (a service).
    func call<Op: BusOperation>(_ operation: Op.Type, _ request: Op.Request, source: String? = nil, account: UUID = account,
                                app: String = "household") async throws -> Result<Op.Response, OperationError>
    {
        let attributes = RequestAttributes(
            source: source ?? "urn:melon:gateway", type: Op.type, authType: source == nil ? "app_user" : nil,
            authID: source == nil ? account.uuidString.lowercased() : nil,
            authClaims: source == nil ? #"{"sid":"\#(Self.session.uuidString.lowercased())","app":"\#(app)"}"# : nil)
        let codec = EnvelopeCodec()
        let reply = await registry.handle(try codec.encode(RequestEnvelope(attributes: attributes, data: request)), logger: BusHarness.logger("call"), bus: nil)
        return try codec.decode(ReplyEnvelope<Op.Response>.self, from: reply).result
    }

    /// Delivery rounds until nothing is due or `timeout` passes; returns how many deliveries were handled.
    @discardableResult
    func deliver(timeout: Duration = .seconds(60), until done: () async throws -> Bool = { false }) async throws -> Int {
        let end = ContinuousClock.now + timeout
        var handled = 0
        while ContinuousClock.now < end {
            handled += try await delivery.deliverDue()
            if try await done() { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        return handled
    }

    /// The first column of every row of `sql`, as text, joined by newlines.
    func text(_ sql: String) async throws -> String {
        try await database.transaction { connection in
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).decode(String?.self)
                .reduce(into: [String]()) { $0.append($1 ?? "NULL") }.joined(separator: "\n")
        }
    }

    func integer(_ sql: String) async throws -> Int {
        try await database.transaction { connection in
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).decode(Int.self).reduce(0, +)
        }
    }
}
