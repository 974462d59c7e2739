import Contracts
import Envelope
import Foundation

extension Notifications {
    public enum Preferences {
        /// An event type the user does not want pushed: it still reaches the inbox.
        public struct Mute: Codable, Sendable, Equatable, Hashable, FieldRules {
            public var app: App
            public var eventType: String

            public init(app: App, eventType: String) {
                self.app = app
                self.eventType = eventType
            }

            public static let fieldRules: [String: FieldRule] = ["eventType": Content.eventTypeRule]
        }

        /// Hours when pushes that are neither time-sensitive nor critical wait, in the user's time zone.
        public struct QuietHours: Codable, Sendable, Equatable, FieldRules {
            /// `HH:mm`, such as `22:00`.
            public var start: String
            /// `HH:mm`; before `start` means the next morning.
            public var end: String
            /// IANA; the newest device's time zone when absent.
            public var timeZone: String?

            public init(start: String, end: String, timeZone: String? = nil) {
                self.start = start
                self.end = end
                self.timeZone = timeZone
            }

            static let time = FieldRule.pattern("^([01][0-9]|2[0-3]):[0-5][0-9]$", meaning: "a time of day as HH:mm")
            public static let fieldRules: [String: FieldRule] = ["start": time, "end": time, "timeZone": Notifications.timeZoneRule]
        }

        /// A user's choices.
        public struct Settings: Codable, Sendable, Equatable, FieldRules {
            public var muted: [Mute]
            public var quietHours: QuietHours?

            public init(muted: [Mute], quietHours: QuietHours? = nil) {
                self.muted = muted
                self.quietHours = quietHours
            }

            public static let fieldRules: [String: FieldRule] = ["muted": FieldRule.count(0...200).described("event types pushed to the inbox only")]
        }

        /// `notifications.preferences.get.v1`: the caller's choices (nothing muted, no quiet hours until set).
        public enum Get: OperationDeclaration {
            public static let service = Notifications.name
            public static let type = "notifications.preferences.get.v1"
            public static let http = [HTTPBinding(.get, "/v1/notifications/preferences", name: "notificationsPreferencesGet", access: .owner, summary: "The caller's muted event types and quiet hours")]
            public typealias Request = Empty
            public typealias Response = Settings
        }

        /// `notifications.preferences.put.v1`: replaces the caller's choices.
        public enum Put: OperationDeclaration {
            public static let service = Notifications.name
            public static let type = "notifications.preferences.put.v1"
            public static let http = [HTTPBinding(.put, "/v1/notifications/preferences", name: "notificationsPreferencesSet", access: .owner, summary: "Replaces the caller's muted event types and quiet hours")]
            public static let idempotency: Idempotency? = .repeatable(because: "it replaces the choices with the same ones again")
            public typealias Request = Settings
            public typealias Response = Settings
        }
    }
}
