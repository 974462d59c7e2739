import Foundation
import NotificationsContract
import PostgresSupport
import ServiceSupport

/// What the notifications service is configured with: read from its settings
/// (`notificationsConfiguration()`), whose declarations hold the defaults.
public struct NotificationsConfiguration: Sendable {
    /// Where pushes go.
    public enum Provider: Sendable {
        case apns(APNsConfiguration)
        /// The local default: each push as a JSON line in a file.
        case log(URL)
    }

    public var provider: Provider
    public var delivery: PushDeliveryConfiguration
    /// A push's expiry when the sender gives none.
    public var defaultLifetime: Duration
    public var devicesPerAccount: Int
    public var scheduleInterval: Duration
    /// Read notifications are deleted this long after they arrived; unread ones stay (`INBOX_RETENTION_DAYS`, twice for unread).
    public var inboxRetentionDays: Int
}

/// How to reach APNs with token-based authentication.
public struct APNsConfiguration: Sendable {
    /// The `.p8` signing key (PEM).
    public var key: String
    public var keyID: String
    public var teamID: String
    /// Each app's bundle id.
    public var topics: [Notifications.App: String]
    public var productionURL: String
    public var sandboxURL: String
    /// PEM file of CA certificates to trust instead of the system's (the tests' local APNs server).
    public var caFile: String?
    /// The provider JWT is renewed this long after it was signed (20 to 60 minutes, as Apple asks).
    public var tokenRefresh: Duration
    public var timeout: Duration
}

extension Setting {
    public static let apnsKeyFile = Setting(
        "apns.key.file", default: nil,
        help: "The APNs signing key (.p8) for token-based authentication. Unset (and APNS_KEY unset): pushes are written to PUSH_LOG instead.")
    public static let apnsKey = Setting("apns.key", default: nil, help: "The APNs signing key itself (PEM), instead of APNS_KEY_FILE.", isSecret: true, provision: .perDeployment)
    public static let apnsKeyID = Setting("apns.key.id", default: nil, help: "The signing key's 10-character key id.", provision: .perDeployment)
    public static let apnsTeamID = Setting("apns.team.id", default: nil, help: "The 10-character Apple developer team id.", provision: .perDeployment)
    public static let apnsTopics = Setting(
        "apns.topics", default: nil,
        help: "Each app's bundle id: app=bundle-id pairs separated by commas, naming every app (melon, nebula, refunds, household, marketplace, fundraising).",
        provision: .perDeployment)
    public static let apnsProductionURL = Setting("apns.production.url", default: "https://api.push.apple.com", help: "APNs for production tokens.")
    public static let apnsSandboxURL = Setting("apns.sandbox.url", default: "https://api.sandbox.push.apple.com", help: "APNs for development tokens.")
    public static let apnsCAFile = Setting("apns.ca.file", default: nil, help: "PEM file of CA certificates to trust for APNs instead of the system's.")
    public static let apnsTokenRefresh = Setting(
        "apns.token.refresh", default: "3000000", help: "Milliseconds after which the provider JWT is renewed (Apple: 20 to 60 minutes).",
        kind: .milliseconds(1_200_000...3_600_000))
    public static let apnsTimeout = Setting("apns.timeout", default: "10000", help: "Milliseconds one APNs request may take.", kind: .milliseconds(100...120_000))
    public static let pushLog = Setting("push.log", default: ".data/push.log", help: "File the local default provider appends each push to (one JSON line each).")
    public static let pushConcurrency = Setting("push.concurrency", default: "32", help: "Pushes this instance sends at once.", kind: .integer(1...512))
    public static let pushLease = Setting(
        "push.lease", default: "30000", help: "Milliseconds a claimed delivery is left to its instance before another may try it.",
        kind: .milliseconds(500...600_000))
    public static let pushRetryFirst = Setting("push.retry.first", default: "1000", help: "Milliseconds before the first retry; doubled per attempt, with jitter.", kind: .milliseconds(10...3_600_000))
    public static let pushRetryMax = Setting("push.retry.max", default: "300000", help: "Longest wait between two attempts, in milliseconds.", kind: .milliseconds(10...86_400_000))
    public static let pushSetupHold = Setting(
        "push.setup.hold", default: "300000", help: "Milliseconds an app's pushes wait after APNs refused our setup (key, team, topic).",
        kind: .milliseconds(100...86_400_000))
    public static let pushLifetime = Setting(
        "push.lifetime", default: "86400000", help: "Milliseconds a push stays deliverable when its sender sets no expiry.", kind: .milliseconds(1_000...(28 * 86_400_000)))
    public static let devicesPerAccount = Setting(
        "devices.per.account", default: "20", help: "Devices an account keeps; registering one more removes the oldest.", kind: .integer(1...200))
    public static let scheduleInterval = Setting("schedule.interval", default: "1000", help: "Milliseconds between two looks for due schedules.", kind: .milliseconds(50...60_000))
    public static let inboxRetentionDays = Setting(
        "inbox.retention.days", default: "90", help: "Days a read notification is kept (an unread one twice as long).", kind: .integer(1...3_650))

    /// Everything the notifications service reads, besides the bus, probe and database settings.
    public static let notificationsSettings: [Setting] = [
        .apnsKeyFile, .apnsKey, .apnsKeyID, .apnsTeamID, .apnsTopics, .apnsProductionURL, .apnsSandboxURL, .apnsCAFile, .apnsTokenRefresh,
        .apnsTimeout, .pushLog, .pushConcurrency, .pushLease, .pushRetryFirst, .pushRetryMax, .pushSetupHold, .pushLifetime, .devicesPerAccount,
        .scheduleInterval, .inboxRetentionDays,
    ]
}

extension ProcessSettings {
    public func notificationsConfiguration() throws -> NotificationsConfiguration {
        var provider = NotificationsConfiguration.Provider.log(URL(fileURLWithPath: try requiredString(.pushLog)))
        if let key = try apnsKey() {
            let topics = try apnsTopics()
            let keyID = try requiredString(.apnsKeyID), teamID = try requiredString(.apnsTeamID)
            let caFile = string(.apnsCAFile).flatMap { $0.isEmpty ? nil : $0 }
            if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
                throw InvalidValue(setting: .apnsCAFile, value: caFile, expected: "a readable PEM file")
            }
            for setting in [Setting.apnsProductionURL, .apnsSandboxURL] {
                let url = try requiredString(setting)
                guard let components = URLComponents(string: url), components.scheme == "https", components.host?.isEmpty == false else {
                    throw InvalidValue(setting: setting, value: url, expected: "an https:// URL")
                }
            }
            provider = .apns(APNsConfiguration(
                key: key, keyID: keyID, teamID: teamID, topics: topics, productionURL: try requiredString(.apnsProductionURL),
                sandboxURL: try requiredString(.apnsSandboxURL), caFile: caFile, tokenRefresh: try milliseconds(.apnsTokenRefresh),
                timeout: try milliseconds(.apnsTimeout)))
        }
        let first = try milliseconds(.pushRetryFirst), maximum = try milliseconds(.pushRetryMax)
        guard maximum >= first else { throw InvalidValue(setting: .pushRetryMax, value: "\(maximum.milliseconds)", expected: "at least PUSH_RETRY_FIRST") }
        return NotificationsConfiguration(
            provider: provider,
            delivery: PushDeliveryConfiguration(
                concurrency: try int(.pushConcurrency), lease: try milliseconds(.pushLease), retry: RetryPolicy(first: first, maximum: maximum),
                setupHold: try milliseconds(.pushSetupHold)),
            defaultLifetime: try milliseconds(.pushLifetime), devicesPerAccount: try int(.devicesPerAccount),
            scheduleInterval: try milliseconds(.scheduleInterval), inboxRetentionDays: try int(.inboxRetentionDays))
    }

    /// The signing key's PEM, from APNS_KEY or APNS_KEY_FILE; nil when neither is set.
    private func apnsKey() throws -> String? {
        if let key = string(.apnsKey), !key.isEmpty { return key }
        guard let path = string(.apnsKeyFile), !path.isEmpty else { return nil }
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw InvalidValue(setting: .apnsKeyFile, value: path, expected: "a readable .p8 file")
        }
        return pem
    }

    private func apnsTopics() throws -> [Notifications.App: String] {
        let text = try requiredString(.apnsTopics)
        var topics: [Notifications.App: String] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let app = Notifications.App(rawValue: parts[0]), parts[1].wholeMatch(of: /[A-Za-z0-9.-]{1,155}/) != nil else {
                throw InvalidValue(setting: .apnsTopics, value: text, expected: "app=bundle.id pairs separated by commas, apps among \(Notifications.App.allCases.map(\.rawValue))")
            }
            topics[app] = parts[1]
        }
        // An app without a bundle id could not be pushed to at all: refuse to start rather than hold its pushes.
        let missing = Notifications.App.allCases.filter { topics[$0] == nil }.map(\.rawValue)
        guard missing.isEmpty else {
            throw InvalidValue(setting: .apnsTopics, value: text, expected: "a bundle id for every app; missing: \(missing.joined(separator: ", "))")
        }
        return topics
    }
}
