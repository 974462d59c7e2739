import Contracts
import Envelope
import Foundation

/// The `notifications` service: devices, pushes (APNs) through a durable queue, schedules, the
/// inbox with its unread counts, and each user's preferences. Other services send pushes and set
/// reminders through their outbox; clients register devices and read their inbox over HTTP.
public enum Notifications: ServiceContract {
    public static let name = "notifications"
    public static let summary = "devices, pushes to APNs through a durable queue, schedules, the inbox and its badges."
    /// Its signed-in routes are for every app has devices, an inbox and preferences (a device takes its session's app).
    public static let apps = AppScope.everyApp
    public static let operations: [any OperationDeclaration.Type] = [
        Devices.Register.self, Devices.List.self, Devices.Delete.self,
        Inbox.List.self, Inbox.MarkRead.self, Inbox.Badges.self,
        Preferences.Get.self, Preferences.Put.self,
        Push.Send.self, Schedule.Set.self, Schedule.Cancel.self,
        Sessions.End.self, Account.Erase.self,
    ]
    public static let erase: (any AccountEraseOperation.Type)? = Account.Erase.self

    /// The client apps; each has its own APNs topic (bundle id), set in `APNS_TOPICS`.
    public typealias App = ClientApp

    /// What a notification says: text already in the user's language, or keys of the app's
    /// `Localizable.strings` with their arguments (the device localises), or both.
    public struct Alert: Codable, Sendable, Equatable, FieldRules {
        public var title: String?
        public var subtitle: String?
        public var body: String?
        public var titleLocKey: String?
        public var titleLocArgs: [String]?
        public var subtitleLocKey: String?
        public var subtitleLocArgs: [String]?
        public var locKey: String?
        public var locArgs: [String]?

        public init(title: String? = nil, subtitle: String? = nil, body: String? = nil, titleLocKey: String? = nil, titleLocArgs: [String]? = nil,
                    subtitleLocKey: String? = nil, subtitleLocArgs: [String]? = nil, locKey: String? = nil, locArgs: [String]? = nil) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
            self.titleLocKey = titleLocKey
            self.titleLocArgs = titleLocArgs
            self.subtitleLocKey = subtitleLocKey
            self.subtitleLocArgs = subtitleLocArgs
            self.locKey = locKey
            self.locArgs = locArgs
        }

        static let key = FieldRule.pattern("^[A-Za-z0-9_.-]{1,100}$", meaning: "1 to 100 letters, digits, _, . or -")
        static let arguments = FieldRule.count(0...10).each(.text(0...200))
        public static let fieldRules: [String: FieldRule] = [
            "title": .text(1...200), "subtitle": .text(1...200),
            "body": FieldRule.text(1...bodyBytes).described(
                "the push's whole APNs payload (aps, this alert, data and Melon's keys) must fit \(APNsLimit.payloadBytes.grouped) bytes of UTF-8, "
                    + "else the request is refused naming this field; with the content's truncateBody, a body up to \(bodyBytes.grouped) bytes is "
                    + "instead shortened on the device with an ellipsis (the inbox keeps it whole)"),
            "titleLocKey": key, "titleLocArgs": arguments, "subtitleLocKey": key, "subtitleLocArgs": arguments, "locKey": key, "locArgs": arguments,
        ]

        /// The longest body, in bytes of UTF-8, even when it is shortened to fit the push.
        public static let bodyBytes = 16_384

        /// True when the alert shows nothing.
        public var isEmpty: Bool { title == nil && subtitle == nil && body == nil && titleLocKey == nil && subtitleLocKey == nil && locKey == nil }
    }

    /// APNs' bounds.
    public enum APNsLimit {
        /// The largest payload of every push type but VoIP.
        public static let payloadBytes = 4_096
    }

    /// How insistently a notification presents itself (APNs `interruption-level`).
    public enum Interruption: String, Codable, Sendable, SchemaEnumeration {
        /// Into the notification list without lighting the screen: sent with priority 5, held in quiet hours.
        case passive
        /// The default: sound and banner; held in quiet hours.
        case active
        /// Breaks through Focus (a deadline today); not held in quiet hours.
        case timeSensitive = "time-sensitive"
        /// Needs Apple's entitlement; not held in quiet hours.
        case critical
    }

    /// What a push says and does, as a service asks for it (the same for a push now and a scheduled one).
    public struct Content: Codable, Sendable, Equatable, FieldRules {
        /// The app whose devices receive it and whose inbox holds it.
        public var app: App
        /// `<service>.<thing>.<event>`, such as `household.bill.created`; users can turn each type off.
        public var eventType: String
        /// The inbox tab it counts in (`groceries`, `chores`, `bills`, `board`, `deadlines`, ...).
        public var category: String
        /// What the notification shows; absent for a silent (background) push, which makes no inbox item and changes no badge.
        public var alert: Alert?
        /// Deep-link data for the app, beside `aps` in the payload and in the inbox item. No personal data.
        public var data: [String: String]?
        /// Newer pushes with the same key replace older ones on the device (`apns-collapse-id`).
        public var collapseKey: String?
        /// Groups notifications on the device (`thread-id`); the category when absent.
        public var threadID: String?
        /// The app's notification category with its actions (`aps.category`).
        public var actionCategory: String?
        public var interruption: Interruption?
        /// A sound file of the app, or `default`; no sound when absent.
        public var sound: String?
        /// Wakes the app in the background (`content-available`); without an alert the push is silent.
        public var contentAvailable: Bool?
        /// Lets the app's notification service extension change the content first.
        public var mutableContent: Bool?
        /// 0 to 100: which notification of a group the system summary shows first (`relevance-score` / 100).
        public var relevance: Int?
        /// When the push is no longer worth delivering; one day after it is sent when absent.
        public var expiresAt: Date?
        /// True: a body that would make the push pass APNs' 4,096 bytes is shortened to fit, ending
        /// with an ellipsis (the inbox keeps it whole). Absent: such a push is refused.
        public var truncateBody: Bool?

        public init(app: App, eventType: String, category: String, alert: Alert? = nil, data: [String: String]? = nil, collapseKey: String? = nil,
                    threadID: String? = nil, actionCategory: String? = nil, interruption: Interruption? = nil, sound: String? = nil,
                    contentAvailable: Bool? = nil, mutableContent: Bool? = nil, relevance: Int? = nil, expiresAt: Date? = nil, truncateBody: Bool? = nil) {
            self.app = app
            self.eventType = eventType
            self.category = category
            self.alert = alert
            self.data = data
            self.collapseKey = collapseKey
            self.threadID = threadID
            self.actionCategory = actionCategory
            self.interruption = interruption
            self.sound = sound
            self.contentAvailable = contentAvailable
            self.mutableContent = mutableContent
            self.relevance = relevance
            self.expiresAt = expiresAt
            self.truncateBody = truncateBody
        }

        /// A push without an alert (content-available only): it wakes the app, makes no inbox item and changes no badge.
        public var isSilent: Bool { alert?.isEmpty ?? true }

        public static let eventTypeRule = FieldRule.pattern(
            "^[a-z][a-z0-9-]{0,39}(\\.[a-z][a-z0-9-]{0,39}){1,3}$", meaning: "2 to 4 dot-separated lowercase words, such as household.bill.created")
        public static let categoryRule = FieldRule.pattern("^[a-z][a-z0-9-]{0,39}$", meaning: "1 to 40 lowercase letters, digits or -, starting with a letter")
        public static let fieldRules: [String: FieldRule] = [
            "eventType": eventTypeRule, "category": categoryRule,
            "data": FieldRule.count(0...20).keys(1...64).each(.text(0...1024)).described("at most 20 entries, keys up to 64 and values up to 1,024 characters"),
            "collapseKey": FieldRule.text(1...64).pattern("^[ -~]*$", meaning: "printable ASCII (APNs takes at most 64 bytes)")
                .described("1 to 64 characters of printable ASCII: APNs takes at most 64 bytes"),
            "threadID": .text(1...64), "actionCategory": .text(1...64), "sound": .text(1...64), "relevance": .range(0...100),
        ]
    }
}
