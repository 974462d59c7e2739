import AuthContract
import Bus
import Contracts
import Foundation
import Media
import PostgresSupport
import ServiceCatalog
import ServiceKit
import ServiceSupport

extension ServiceDefinition {
    /// `auth`: accounts, email verification, sessions and the access-token keys.
    public static let auth = ServiceDefinition(
        contract: Auth.self, schema: "auth",
        settings: Setting.authSettings,
        deployment: ServiceDeployment(about: "accounts, email verification, sessions, access-token keys, agreements, profile pictures"),
        alsoCalls: ServiceCatalog.erasures, migrations: { try Migration.load(bundle: .module) }
    ) { environment in
        let configuration = try environment.settings.authConfiguration()
        let database = environment.requireDatabase()
        let keys = SigningKeys(database: database, configuration: configuration)
        let accounts = AccountPostgresRepository(database: database)
        let registrations = RegistrationPostgresRepository(database: database)
        let sessionStore = SessionPostgresRepository(
            database: database, keyEncryptionKey: configuration.keys.current, lifetime: configuration.sessionLifetime,
            accessTokenLifetime: configuration.accessTokenLifetime)
        let events = SecurityEventPostgresRepository(database: database)
        let limits = AttemptLimits(database: database, backoff: configuration.backoff, events: events)
        let hasher = PasswordHasher()
        let registration = RegistrationHandlers(
            database: database, accounts: accounts, registrations: registrations, hasher: hasher, policy: try PasswordPolicy.bundled(), limits: limits, configuration: configuration)
        let sessions = SessionHandlers(
            database: database, accounts: accounts, registrations: registrations, sessions: sessionStore, hasher: hasher, keys: keys,
            limits: limits, events: events,
            configuration: configuration, decoyHash: PasswordHasher.decoyHash)
        let passwords = PasswordHandlers(
            database: database, accounts: accounts, sessions: sessionStore, events: events, hasher: hasher, registration: registration,
            configuration: configuration)
        let profiles = ProfileHandlers(
            database: database, accounts: accounts, registrations: registrations, sessions: sessionStore, events: events, hasher: hasher, limits: limits)
        let agreements = AgreementHandlers(database: database, sessions: sessionStore, agreements: AgreementPostgresRepository(database: database))
        let directory = UserDirectoryPostgresRepository(database: database)
        let pictureStore = PicturePostgresRepository(database: database, media: MediaLibrary(database: database, limits: PictureHandlers.limits))
        let pictures = PictureHandlers(
            database: database, sessions: sessionStore, pictures: pictureStore, directory: directory,
            configuration: configuration)
        let users = UserDirectoryHandlers(database: database, sessions: sessionStore, directory: directory)

        var handlers = OperationHandlers(Auth.self, database: database)
        handlers.once(Auth.Account.Register.self, prepare: registration.prepareRegistration, apply: registration.register)
        handlers.on(Auth.Email.Verify.self, registration.verify)
        handlers.on(Auth.Email.Resend.self, registration.resend)
        handlers.on(Auth.Session.Login.self, sessions.login)
        handlers.on(Auth.Session.Refresh.self, sessions.refresh)
        handlers.on(Auth.Session.Logout.self, sessions.logout)
        handlers.on(Auth.Password.Forgot.self, passwords.forgot)
        handlers.on(Auth.Password.Reset.self, passwords.reset)
        handlers.on(Auth.Password.Change.self, passwords.change)
        handlers.on(Auth.Password.Confirm.self, passwords.confirm)
        handlers.on(Auth.Events.List.self, profiles.securityEvents)
        handlers.on(Auth.Agreements.List.self, agreements.list)
        handlers.on(Auth.Agreements.Sign.self, agreements.sign)
        handlers.on(Auth.Agreements.Withdraw.self, agreements.withdraw)
        handlers.on(Auth.Picture.Set.self, pictures.set)
        handlers.on(Auth.Picture.Get.self, pictures.get)
        handlers.on(Auth.Picture.Delete.self, pictures.delete)
        handlers.on(Auth.Me.Get.self, profiles.get)
        handlers.on(Auth.Me.Update.self, profiles.update)
        handlers.on(Auth.Me.Delete.self, profiles.delete)
        handlers.on(Auth.Users.Search.self, users.search)
        handlers.on(Auth.Users.Get.self, users.profile)
        handlers.on(Auth.Universities.List.self, users.universities)
        handlers.on(Auth.Keys.Jwks.self, sessions.jwks)
        handlers.on(Auth.Sessions.Revoked.self, sessions.revoked)
        let housekeeping = AuthHousekeeping(
            limits: limits, events: events, registrations: registrations, sessions: sessionStore, pictures: pictureStore,
            retention: configuration.securityEventRetention)
        if let events = environment.events { RevocationAnnouncer.announce(from: database, on: events) }
        return ServiceParts(handlers: handlers, jobs: housekeeping.jobs(database: database))
    }
}
