import AccessTokens
import AuthContract
import AuthService
import Bus
import Contracts
import Envelope
import Foundation
import GatewayService
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresSupport
import ServiceKit
import ServiceSupport

/// Services' operations through the gateway's own routing, in this process: no broker, no socket,
/// no child process (Hummingbird's `.router` testing, and a bus client that hands each request to the
/// service's registry). Requests are checked, routed, encoded and answered exactly as over the bus.
/// What most of a service's HTTP tests need; the process stacks (`AuthStack`) stay for the wiring:
/// the broker, CurveZMQ, processes, real HTTP, the outbox relay and jobs, which do not run here.
public enum InProcessStack {
    /// Runs `body` with an HTTP client of a gateway routing to `definitions`, each built as its
    /// process builds it on a fresh schema of the test database, with `environment` (each required
    /// setting's local value is given) and `clock`.
    public static func with(
        _ definitions: [ServiceDefinition], environment: [String: String] = [:], clock: ServiceClock = .system,
        _ body: @Sendable (InProcessHTTP) async throws -> Void
    ) async throws {
        let databases = try definitions.map { definition in try definition.schema.map { _ in try TestDatabase.make(now: clock.now) } }
        try await BusHarness.with(databases.compactMap { $0 }) {
            var registries: [OperationRegistry] = []
            for (definition, database) in zip(definitions, databases) {
                let settings = definition.localEnvironment().merging(environment) { $1 }
                registries.append(try await definition.provider(on: database, environment: settings, clock: clock))
            }
            let byService = Dictionary(zip(definitions.map(\.name), databases).compactMap { name, database in database.map { (name, $0) } }) { first, _ in first }
            try await serve(definitions.map(\.contract), registries, databases: byService, clock: clock, body)
        }
    }

    /// Runs `body` with an HTTP client of a gateway routing `contracts`' routes to `registries`, which
    /// answer in their place (a test's stand-ins, recording what reached the bus).
    public static func with(
        routing contracts: [any ServiceContract.Type], to registries: [OperationRegistry], clock: ServiceClock = .system,
        _ body: @Sendable (InProcessHTTP) async throws -> Void
    ) async throws {
        try await serve(contracts, registries, databases: [:], clock: clock, body)
    }

    private static func serve(
        _ contracts: [any ServiceContract.Type], _ registries: [OperationRegistry], databases: [String: Database], clock: ServiceClock,
        _ body: @Sendable (InProcessHTTP) async throws -> Void
    ) async throws {
        // Signed-in callers: tokens signed with a key of the test's own, checked by the gateway's own
        // JWKS authenticator, which fetches the key over the bus as from auth.
        let tokens = try await InProcessTokens(clock: clock)
        var registries = registries
        if !registries.contains(where: { $0.types.contains(Auth.Keys.Jwks.type) }) {
            // Auth's keys, answered beside a stand-in of auth's other operations or on their own.
            if let index = registries.firstIndex(where: { $0.service == Auth.name }) {
                registries[index].register(Auth.Keys.Jwks.self) { [key = tokens.key] _, _ in try .init(publishing: [key]) }
            } else {
                registries.append(tokens.keysRegistry)
            }
        }
        let bus = try BusClient(serving: registries, configuration: ClientConfiguration(endpoint: "inproc://in-process", processName: "gateway"))
        let settings = try ProcessSettings.declared(Setting.gatewaySettings, process: "gateway", environment: ["BUS_CURVE": "off"])
        let authenticator = JWKSAuthenticator(
            bus: bus, revocations: nil, audience: try settings.requiredString(.authAudience), issuer: try settings.requiredString(.authIssuer),
            logger: BusHarness.logger("gateway"), maxKeyAge: .seconds(3600), clock: clock)
        let app = buildApplication(
            configuration: try settings.gatewayConfiguration(), services: contracts, bus: bus, authenticator: authenticator,
            logger: BusHarness.logger("gateway"))
        try await app.test(.router) { client in try await body(InProcessHTTP(client: client, tokens: tokens, databases: databases, bus: bus)) }
    }
}

/// The HTTP client of an `InProcessStack`, answering as `HTTPTestClient` does.
public struct InProcessHTTP: Sendable {
    let client: any TestClientProtocol
    let tokens: InProcessTokens
    /// Each service's database, by the service's name: to read what a route left behind (its outbox).
    public let databases: [String: Database]
    /// The stack's bus: each request goes to the registry of its service, in this process.
    let bus: BusClient

    /// Delivers what `service` put in its outbox to the stack's services, as its relay would (a
    /// row for a service not in the stack waits for a later attempt): the relay, which does not run
    /// here, done once. How many rows it took.
    @discardableResult
    public func relayOutbox(of service: String) async throws -> Int {
        guard let database = databases[service] else { return 0 }
        return try await OutboxRelay(database: database, bus: bus).deliverDue()
    }

    /// The `Authorization` header of a fresh access token for `account`, signed as auth signs one.
    public func signedIn(_ account: UUID, as who: TestCaller = TestCaller()) async throws -> [String: String] {
        ["Authorization": "Bearer \(try await tokens.token(for: account, as: who))"]
    }

    /// `method` `path` (with its query) with an optional body; JSON content type unless given.
    public func send(_ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:]) async throws -> HTTPTestClient.Reply {
        var fields = HTTPFields()
        if body != nil, headers.keys.contains(where: { $0.lowercased() == "content-type" }) == false { fields[.contentType] = "application/json" }
        for (name, value) in headers { if let name = HTTPField.Name(name) { fields[name] = value } }
        let response = try await client.execute(
            uri: path, method: HTTPRequest.Method(method) ?? .get, headers: fields, body: body.map { ByteBuffer(bytes: $0) })
        var replyHeaders: [String: String] = [:]
        for field in response.headers { replyHeaders[field.name.canonicalName.lowercased()] = field.value }
        return HTTPTestClient.Reply(status: response.status.code, headers: replyHeaders, body: Array(buffer: response.body))
    }

    public func post(_ path: String, json: String, headers: [String: String] = [:]) async throws -> HTTPTestClient.Reply {
        try await send("POST", path, body: Array(json.utf8), headers: headers)
    }

    public func get(_ path: String, headers: [String: String] = [:]) async throws -> HTTPTestClient.Reply {
        try await send("GET", path, headers: headers)
    }
}

/// The access-token key of an in-process stack: it signs tokens for any account, and answers the
/// gateway's key fetch (`auth.keys.jwks.v1`) as auth would.
struct InProcessTokens: Sendable {
    let key = SigningKey.generate()
    let signer: AccessTokenSigner
    /// The stack's clock: a token is issued at its now, so a test that moves the clock signs in again.
    let clock: ServiceClock

    init(clock: ServiceClock) async throws {
        signer = try await AccessTokenSigner(current: key)
        self.clock = clock
    }

    var keysRegistry: OperationRegistry {
        var registry = OperationRegistry(service: Auth.name)
        let key = key
        registry.register(Auth.Keys.Jwks.self) { _, _ in try .init(publishing: [key]) }
        return registry
    }

    func token(for account: UUID, as who: TestCaller = TestCaller()) async throws -> String {
        try await signer.sign(AccessTokenClaims(
            subject: account.uuidString.lowercased(), session: UUID().uuidString.lowercased(), university: who.university, roles: who.roles,
            app: who.app, audience: Setting.authAudience.defaultValue ?? "melon", issuer: Setting.authIssuer.defaultValue ?? "urn:melon:auth",
            issuedAt: clock.now(), expiresAt: clock.now().adding(.seconds(900)), username: who.username,
            agreements: who.agreements.isEmpty ? nil : who.agreements))
    }
}

/// What an in-process token says of its account beyond its id, as auth would sign it.
public struct TestCaller: Sendable {
    public var university: String?
    public var username: String?
    public var agreements: [String]
    public var roles: [String]
    public var app: String

    public init(university: String? = nil, username: String? = nil, agreements: [String] = [], roles: [String] = ["user"], app: String = "melon") {
        self.university = university
        self.username = username
        self.agreements = agreements
        self.roles = roles
        self.app = app
    }
}
