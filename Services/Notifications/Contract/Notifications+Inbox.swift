import Contracts
import Envelope
import Foundation

extension Notifications {
    public enum Inbox {
        /// One notification in the caller's inbox: kept (unread ones until read) whether or not a
        /// push reached a device, so nothing depends on a push arriving.
        public struct Item: Codable, Sendable, Equatable, FieldRules {
            public var id: String
            public var app: App
            public var eventType: String
            public var category: String
            public var alert: Alert?
            public var data: [String: String]?
            public var createdAt: Date
            public var readAt: Date?

            public init(id: String, app: App, eventType: String, category: String, alert: Alert?, data: [String: String]?, createdAt: Date,
                        readAt: Date?) {
                self.id = id
                self.app = app
                self.eventType = eventType
                self.category = category
                self.alert = alert
                self.data = data
                self.createdAt = createdAt
                self.readAt = readAt
            }

            public static let fieldRules: [String: FieldRule] = ["id": FieldRule.uuid.described("the notification id, also in the push as melon.id")]
        }

        /// `notifications.inbox.list.v1`: the caller's notifications for one app, newest first, a page at a time.
        public enum List: OperationDeclaration {
            public static let service = Notifications.name
            public static let type = "notifications.inbox.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/notifications", name: "notificationsList", access: .owner, summary: "The caller's notifications in one app, newest first (keyset paging)")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var app: App
                /// Only this tab's notifications.
                public var category: String?
                /// Only unread ones.
                public var unread: Bool?
                public var limit: Int?
                public var after: Int64?

                public init(app: App, category: String? = nil, unread: Bool? = nil, limit: Int? = nil, after: Int64? = nil) {
                    self.app = app
                    self.category = category
                    self.unread = unread
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = PageRequest.fieldRules.merging(["category": Content.categoryRule]) { $1 }

                public var page: PageRequest { PageRequest(limit: limit, after: after) }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var notifications: [Item]
                public var nextAfter: Int64?

                public init(notifications: [Item], nextAfter: Int64?) {
                    self.notifications = notifications
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }

        /// `notifications.inbox.read.v1`: marks the caller's notifications in one app read: the ones
        /// named, every one of a category, or all.
        public enum MarkRead: OperationDeclaration {
            public static let service = Notifications.name
            public static let type = "notifications.inbox.read.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/notifications/read", name: "notificationsRead", access: .owner,
                summary: "Marks notifications read: the ids given, one category, or all; answers the unread counts left")]
            public static let idempotency: Idempotency? = .repeatable(because: "marking read again changes nothing")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var app: App
                /// Exactly one of `ids`, `category` and `all`.
                public var ids: [String]?
                public var category: String?
                public var all: Bool?

                public init(app: App, ids: [String]? = nil, category: String? = nil, all: Bool? = nil) {
                    self.app = app
                    self.ids = ids
                    self.category = category
                    self.all = all
                }

                public static let fieldRules: [String: FieldRule] = [
                    "ids": FieldRule.count(1...100).each(.uuid), "category": Content.categoryRule,
                ]
            }

            public struct Response: Codable, Sendable, Equatable {
                /// How many changed from unread to read.
                public var marked: Int
                public var badges: Badges.Response

                public init(marked: Int, badges: Badges.Response) {
                    self.marked = marked
                    self.badges = badges
                }
            }
        }

        /// `notifications.inbox.badges.v1`: the caller's unread counts in one app, per category (tab
        /// badges) and in all (the app icon's badge, which every push carries).
        public enum Badges: OperationDeclaration {
            public static let service = Notifications.name
            public static let type = "notifications.inbox.badges.v1"
            public static let http = [HTTPBinding(.get, "/v1/notifications/badges", name: "notificationsBadges", access: .owner, summary: "Unread counts per category and in all")]

            public struct Request: Codable, Sendable, Equatable {
                public var app: App

                public init(app: App) { self.app = app }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var total: Int
                public var categories: [String: Int]

                public init(total: Int, categories: [String: Int]) {
                    self.total = total
                    self.categories = categories
                }

                public static let fieldRules: [String: FieldRule] = ["categories": .described("unread notifications per category; categories with none are left out")]
            }
        }
    }
}
