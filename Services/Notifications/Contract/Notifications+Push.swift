import Contracts
import Envelope
import Foundation

extension Notifications {
    public enum Push {
        /// `notifications.push.send.v1`: a notification for each recipient's inbox (unless the push
        /// is silent), pushed to each of their devices of the app (unless they muted the event type;
        /// held through their quiet hours unless time-sensitive or critical). Recipients whose
        /// account was erased are left out. Services send it through their outbox. Chat and tax
        /// pushes carry no message text or personal data: a generic alert and ids in `data`.
        public enum Send: OperationDeclaration {
            public static let service = Notifications.name
            public static let type = "notifications.push.send.v1"
            public static let idempotency: Idempotency? = .stored(.operation)

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                /// Account ids, 1 to 1,000.
                public var recipients: [String]
                public var content: Content
                /// The same key from the same service again is the same push (answered with the first one's id).
                public var dedupeKey: String?

                public init(recipients: [String], content: Content, dedupeKey: String? = nil) {
                    self.recipients = recipients
                    self.content = content
                    self.dedupeKey = dedupeKey
                }

                public static let fieldRules: [String: FieldRule] = [
                    "recipients": FieldRule.count(1...1_000).each(.uuid), "dedupeKey": .text(1...200),
                ]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var pushID: String
                /// Inbox items written: one per recipient, none for a silent push or an account erased here.
                public var notifications: Int
                /// Device deliveries queued.
                public var deliveries: Int
                /// True when `dedupeKey` named an earlier push: nothing new was queued.
                public var duplicate: Bool

                public init(pushID: String, notifications: Int, deliveries: Int, duplicate: Bool) {
                    self.pushID = pushID
                    self.notifications = notifications
                    self.deliveries = deliveries
                    self.duplicate = duplicate
                }
            }
        }
    }

    public enum Schedule {
        /// How a schedule repeats.
        public enum Frequency: String, Codable, Sendable, SchemaEnumeration {
            case daily, weekly, monthly
        }

        public struct Repeat: Codable, Sendable, Equatable, FieldRules {
            public var frequency: Frequency
            /// Every `interval` days, weeks or months; 1 when absent.
            public var interval: Int?
            /// The last local day (`yyyy-MM-dd`) it may fire on.
            public var until: String?
            /// How many times it fires in all, the first included.
            public var count: Int?

            public init(frequency: Frequency, interval: Int? = nil, until: String? = nil, count: Int? = nil) {
                self.frequency = frequency
                self.interval = interval
                self.until = until
                self.count = count
            }

            public static let fieldRules: [String: FieldRule] = [
                "interval": .range(1...366), "count": .range(1...10_000),
                "until": .pattern("^[0-9]{4}-[0-9]{2}-[0-9]{2}$", meaning: "a day as yyyy-MM-dd"),
            ]
        }

        /// `notifications.schedule.set.v1`: a push to one user at a local time, once or repeating;
        /// setting the same key again (from the same service) replaces it, so a reminder moves with
        /// its due date.
        public enum Set: OperationDeclaration {
            public static let service = Notifications.name
            public static let type = "notifications.schedule.set.v1"
            public static let idempotency: Idempotency? = .repeatable(because: "setting the same key again replaces the schedule with the same one")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                /// Unique per calling service, such as `tax-deadline-2026-<account>`.
                public var key: String
                public var recipient: String
                /// The first time, as a local date and time `yyyy-MM-ddTHH:mm` in `timeZone`.
                public var start: String
                /// IANA; the recipient's (quiet hours, else newest device), else UTC, when absent.
                public var timeZone: String?
                public var `repeat`: Repeat?
                public var content: Content
                /// Orders the changes to one key when the sender's outbox may deliver them out of
                /// order: a set or cancel with a lower revision than the key's newest is ignored.
                public var revision: Int64?

                public init(
                    key: String, recipient: String, start: String, timeZone: String? = nil, repeat: Repeat? = nil, content: Content, revision: Int64? = nil
                ) {
                    self.key = key
                    self.recipient = recipient
                    self.start = start
                    self.timeZone = timeZone
                    self.repeat = `repeat`
                    self.content = content
                    self.revision = revision
                }

                public static let fieldRules: [String: FieldRule] = [
                    "key": .text(1...200), "recipient": .uuid, "timeZone": Notifications.timeZoneRule, "revision": .range(Int64(0)...Int64.max),
                    "start": .pattern("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}$", meaning: "a local time as yyyy-MM-ddTHH:mm"),
                ]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var key: String
                /// When it fires next; absent when it never will (a past time, or a repeat that has ended).
                public var nextAt: Date?

                public init(key: String, nextAt: Date?) {
                    self.key = key
                    self.nextAt = nextAt
                }
            }
        }

        /// `notifications.schedule.cancel.v1`: the calling service's schedule with this key stops.
        public enum Cancel: OperationDeclaration {
            public static let service = Notifications.name
            public static let type = "notifications.schedule.cancel.v1"
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds nothing left to cancel")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var key: String
                /// As in `Set`: a cancel older than the key's newest set is ignored.
                public var revision: Int64?

                public init(key: String, revision: Int64? = nil) {
                    self.key = key
                    self.revision = revision
                }

                public static let fieldRules: [String: FieldRule] = ["key": .text(1...200), "revision": .range(Int64(0)...Int64.max)]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var cancelled: Bool

                public init(cancelled: Bool) { self.cancelled = cancelled }
            }
        }
    }

    public enum Sessions {
        /// `notifications.sessions.end.v1`: sessions that ended (logout, password reset, a reused
        /// refresh token); their devices stop receiving pushes. Auth sends it through its outbox.
        public enum End: OperationDeclaration {
            public static let service = Notifications.name
            public static let type = "notifications.sessions.end.v1"
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds the devices gone")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var account: String
                public var sessions: [String]

                public init(account: String, sessions: [String]) {
                    self.account = account
                    self.sessions = sessions
                }

                public static let fieldRules: [String: FieldRule] = ["account": .uuid, "sessions": FieldRule.count(1...1_000).each(.uuid)]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var devicesRemoved: Int

                public init(devicesRemoved: Int) { self.devicesRemoved = devicesRemoved }
            }
        }
    }

    public enum Account {
        /// `notifications.account.erase.v1`: a deleted account's devices, inbox, preferences,
        /// schedules and queued pushes are deleted. Sent by auth through its outbox.
        public enum Erase: AccountEraseOperation {
            public static let service = Notifications.name
            public static let type = "notifications.account.erase.v1"
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds nothing left to erase")

            public typealias Request = AccountErasure

            public struct Response: Codable, Sendable, Equatable {
                public var devices: Int
                public var notifications: Int
                public var schedules: Int

                public init(devices: Int, notifications: Int, schedules: Int) {
                    self.devices = devices
                    self.notifications = notifications
                    self.schedules = schedules
                }
            }
        }
    }
}
