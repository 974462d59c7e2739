import Contracts
import Envelope
import Foundation

extension Household {
    /// One thing that happened in the household, as its members were told.
    public struct Activity: Codable, Sendable, Equatable, FieldRules {
        /// `household.bill.created`, `household.chore.done`, ...
        public var eventType: String
        /// The tab it belongs to: `groceries`, `chores`, `bills`, `board`.
        public var category: String
        /// What the app opens: `grocery-item`, `shopping-list`, `chore`, `bill`, `settlement`, `post`.
        public var resource: String
        public var resourceId: String
        /// Who did it; absent for what happened by itself (a repeating bill, a skipped turn).
        public var memberId: String?
        public var title: String
        public var body: String
        public var at: Date

        public init(eventType: String, category: String, resource: String, resourceId: String, memberId: String?, title: String, body: String, at: Date) {
            self.eventType = eventType
            self.category = category
            self.resource = resource
            self.resourceId = resourceId
            self.memberId = memberId
            self.title = title
            self.body = body
            self.at = at
        }

        public static let fieldRules: [String: FieldRule] = ["resourceId": .uuid, "memberId": .uuid]
    }

    public enum Activities {
        /// `household.activity.list.v1`
        public enum List: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.activity.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/activity", name: "householdActivity", access: .member, errors: [.notFound],
                summary: "The household's activity feed, the newest first, optionally one tab's (keyset paging; a year is kept)")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                /// Only this tab's: `groceries`, `chores`, `bills` or `board`.
                public var category: String?
                public var limit: Int?
                public var after: Int64?

                public init(householdId: String, category: String? = nil, limit: Int? = nil, after: Int64? = nil) {
                    self.householdId = householdId
                    self.category = category
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = PageRequest.fieldRules.merging([
                    "householdId": .uuid, "category": .oneOf(["groceries", "chores", "bills", "board"]),
                ]) { $1 }
                public var page: PageRequest { PageRequest(limit: limit, after: after) }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var activity: [Household.Activity]
                public var nextAfter: Int64?

                public init(activity: [Household.Activity], nextAfter: Int64?) {
                    self.activity = activity
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }
    }
}
