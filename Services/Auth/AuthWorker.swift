import Bus
import AuthContract
import Contracts
import Envelope
import Foundation
import Logging
import PostgresSupport
import ServiceLifecycle
import ServiceSupport

/// The auth service's operations and running parts, as the `auth` executable and `melon` run them.
public struct AuthWorker: Sendable {
    /// The database schema the service owns.
    public static let schema = "auth"

    public let database: Database
    public let runtime: WorkerRuntime
    /// Delivers the mail (codes, notices) the handlers queue in the outbox.
    public let relay: OutboxRelay
    public let keys: SigningKeys
    let housekeeping: AuthHousekeeping

    /// An Argon2id hash (OWASP parameters) of a password nobody has: verified against when an email
    /// is unknown, so that a login takes as long either way.
    static let decoyHash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$mrMxPtCODpEWm3XJuRC2RShkJZ1ymBtczcrPlB0sYKY"

    public static func migrations() throws -> [Migration] {
        try Migration.load(from: Bundle.module.resourceURL!.appendingPathComponent("Migrations"))
    }

    /// The operations of `auth`, on `database`.
    public static func registry(configuration: AuthConfiguration, database: Database, keys: SigningKeys) throws -> OperationRegistry {
        let accounts = AccountPostgresRepository(database: database)
        let sessionStore = SessionPostgresRepository(database: database)
        let events = SecurityEventPostgresRepository(database: database)
        let limits = AttemptLimits(database: database, backoff: configuration.backoff)
        let hasher = PasswordHasher()
        let registration = RegistrationHandlers(
            database: database, accounts: accounts, hasher: hasher, policy: try PasswordPolicy.bundled(), limits: limits, configuration: configuration)
        let sessions = SessionHandlers(
            database: database, accounts: accounts, sessions: sessionStore, hasher: hasher, keys: keys, limits: limits, events: events,
            configuration: configuration, decoyHash: decoyHash)
        let passwords = PasswordHandlers(
            database: database, accounts: accounts, sessions: sessionStore, events: events, hasher: hasher, registration: registration,
            configuration: configuration)
        let profiles = ProfileHandlers(database: database, accounts: accounts, sessions: sessionStore, events: events, hasher: hasher, limits: limits)
        let agreements = AgreementHandlers(database: database, sessions: sessionStore, agreements: AgreementPostgresRepository(database: database))
        let pictures = PictureHandlers(
            database: database, sessions: sessionStore, pictures: PicturePostgresRepository(database: database), configuration: configuration)
        var registry = OperationRegistry(service: Auth.name)
        registry.register(Auth.Account.Register.self, handler: registration.register)
        registry.register(Auth.Email.Verify.self, handler: registration.verify)
        registry.register(Auth.Email.Resend.self, handler: registration.resend)
        registry.register(Auth.Session.Login.self, handler: sessions.login)
        registry.register(Auth.Session.Refresh.self, handler: sessions.refresh)
        registry.register(Auth.Session.Logout.self, handler: sessions.logout)
        registry.register(Auth.Password.Forgot.self, handler: passwords.forgot)
        registry.register(Auth.Password.Reset.self, handler: passwords.reset)
        registry.register(Auth.Password.Change.self, handler: passwords.change)
        registry.register(Auth.Events.List.self, handler: profiles.securityEvents)
        registry.register(Auth.Agreements.List.self, handler: agreements.list)
        registry.register(Auth.Agreements.Sign.self, handler: agreements.sign)
        registry.register(Auth.Agreements.Withdraw.self, handler: agreements.withdraw)
        registry.register(Auth.Picture.Set.self, handler: pictures.set)
        registry.register(Auth.Picture.Get.self, handler: pictures.get)
        registry.register(Auth.Picture.Delete.self, handler: pictures.delete)
        registry.register(Auth.Me.Get.self, handler: profiles.get)
        registry.register(Auth.Me.Update.self, handler: profiles.update)
        registry.register(Auth.Me.Delete.self, handler: profiles.delete)
        registry.register(Auth.Keys.Jwks.self, handler: sessions.jwks)
        return registry
    }

    public init(configuration: AuthConfiguration, worker: WorkerConfiguration, database: Database, bus: BusClient, logger: Logger) throws {
        self.database = database
        keys = SigningKeys(database: database, configuration: configuration)
        runtime = try WorkerRuntime(
            registry: Self.registry(configuration: configuration, database: database, keys: keys), configuration: worker, bus: bus, logger: logger)
        relay = OutboxRelay(database: database, bus: bus)
        housekeeping = AuthHousekeeping(
            database: database, limits: AttemptLimits(database: database, backoff: configuration.backoff),
            events: SecurityEventPostgresRepository(database: database), retention: configuration.securityEventRetention)
    }

    /// In ServiceGroup order, after the bus client: the pool, then (once migrated) the worker, the
    /// relay and the housekeeping.
    public func services() throws -> [any Service] {
        [database, RunAfterMigrations(database: database, migrations: try Self.migrations(), services: [runtime, relay, housekeeping])]
    }

    /// What /readyz checks.
    public var readiness: [(name: String, check: HealthServer.Check)] {
        let runtime = runtime, database = database
        return [("broker", { runtime.health.isConnected }), ("database", { await database.isReachable() })]
    }
}
