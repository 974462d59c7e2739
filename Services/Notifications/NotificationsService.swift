import Contracts
import Foundation
import Logging
import NotificationsContract
import PostgresSupport
import ServiceKit
import ServiceSupport

extension ServiceDefinition {
    /// `notifications`: devices, pushes through a durable queue to APNs (or the push log), schedules,
    /// the inbox with its unread counts, and preferences. Any number of instances share the queue and
    /// the schedules in PostgreSQL; each delivery is sent by one instance at a time, with one apns-id.
    public static let notifications = ServiceDefinition(
        contract: Notifications.self, schema: "notifications", settings: Setting.notificationsSettings, settingPrefixes: ["apns", "push", "devices", "inbox", "schedule"],
        deployment: ServiceDeployment(
            about: "devices, pushes to APNs through a durable queue, schedules in the user's time zone, the inbox, badges, preferences; "
                + "replicas share the queue and the schedules, so scaling out never sends one push twice",
            scratch: [ScratchDirectory(volume: "push-log", path: "/var/log/melon-push", shared: true, environment: ["PUSH_LOG": "/var/log/melon-push/push.log"])],
            maxReplicas: 6),
        migrations: { try Migration.load(bundle: .module) }
    ) { environment in
        let configuration = try environment.settings.notificationsConfiguration()
        let database = environment.requireDatabase()
        let deviceStore = DeviceStore(database: database)
        let devices = DeviceHandlers(database: database, devices: deviceStore, limit: configuration.devicesPerAccount)
        let inboxStore = InboxStore(database: database)
        let inbox = InboxHandlers(inbox: inboxStore, preferences: PreferenceStore(database: database))
        let pushes = PushHandlers(database: database, defaultLifetime: configuration.defaultLifetime, now: environment.clock.now)
        let erasure = AccountErasureHandler(database: database)

        var handlers = OperationHandlers(Notifications.self, database: database)
        handlers.on(Notifications.Devices.Register.self, devices.register)
        handlers.on(Notifications.Devices.List.self, devices.list)
        handlers.on(Notifications.Devices.Delete.self, devices.delete)
        handlers.on(Notifications.Sessions.End.self, devices.endSessions)
        handlers.on(Notifications.Inbox.List.self, inbox.list)
        handlers.on(Notifications.Inbox.MarkRead.self, inbox.markRead)
        handlers.on(Notifications.Inbox.Badges.self, inbox.badges)
        handlers.on(Notifications.Preferences.Get.self, inbox.preferences)
        handlers.on(Notifications.Preferences.Put.self, inbox.setPreferences)
        handlers.once(Notifications.Push.Send.self, prepare: pushes.prepareSend, apply: pushes.send)
        handlers.on(Notifications.Schedule.Set.self, pushes.setSchedule)
        handlers.on(Notifications.Schedule.Cancel.self, pushes.cancelSchedule)
        handlers.on(Notifications.Account.Erase.self, erasure.erase)

        let (provider, topics) = try configuration.provider.make(database: database, now: environment.clock.now, logger: environment.logger)
        let delivery = PushDelivery(
            queue: PushQueue(database: database), provider: provider, topics: topics, configuration: configuration.delivery, logger: environment.logger)
        let firing = ScheduleFiring(schedules: pushes.schedules, pushes: pushes, logger: environment.logger)
        let now = environment.clock.now
        let fire = PeriodicJob("schedules.fire", every: configuration.scheduleInterval, jitter: .zero, database: database) { connection in
            try await firing.round(now: now(), on: connection)
        }
        let days = configuration.inboxRetentionDays
        let prune = PeriodicJob("inbox.prune", every: .seconds(3_600), database: database) { connection in
            try await inboxStore.prune(days: days, on: connection)
        }
        return ServiceParts(handlers: handlers, jobs: [fire, prune], services: [delivery])
    }
}

extension NotificationsConfiguration.Provider {
    /// The provider this configuration names, saying in the log where pushes go.
    func make(database: Database, now: @escaping @Sendable () -> Date, logger: Logger) throws -> (any PushProvider, [Notifications.App: String]?) {
        switch self {
        case .apns(let apns):
            logger.info("pushes go to APNs", metadata: [
                "production": "\(apns.productionURL)", "sandbox": "\(apns.sandboxURL)", "key_id": "\(apns.keyID)", "team_id": "\(apns.teamID)",
                "apps": "\(apns.topics.keys.map(\.rawValue).sorted())",
            ])
            let token: APNsProviderToken
            do {
                token = try APNsProviderToken(
                    pem: apns.key, keyID: apns.keyID, teamID: apns.teamID, refreshAfter: apns.tokenRefresh, database: database, now: now)
            } catch {
                throw ProcessSettings.InvalidValue(setting: .apnsKeyFile, value: "(the key)", expected: "a P-256 private key in PEM (an APNs .p8 file)")
            }
            return (try APNsHTTP2Provider(configuration: apns, token: token, logger: logger), apns.topics)
        case .log(let file):
            logger.notice("APNS_KEY_FILE is not set: pushes are written to the push log, not sent", metadata: ["file": "\(file.path)"])
            return (LogPushProvider(file: file), nil)
        }
    }
}
