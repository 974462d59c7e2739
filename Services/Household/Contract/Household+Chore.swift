import Contracts
import Envelope
import Foundation

extension Household {
    /// How often a chore comes back.
    public enum Frequency: String, Codable, Sendable, SchemaEnumeration {
        /// Due once; done, it stays done.
        case once
        case daily
        /// On the chosen `weekdays`.
        case weekly
        /// On the first due date's day of the month (the month's last day when it is shorter).
        case monthly
    }

    /// A household chore: who does it next, and when it is due.
    public struct Chore: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var title: String
        public var description: String?
        public var frequency: Frequency
        /// For `weekly`: 1 (Monday) to 7 (Sunday).
        public var weekdays: [Int]?
        /// IANA: the days and times the chore repeats on are this zone's.
        public var timeZone: String
        /// When the current turn is due; absent once a `once` chore is done.
        public var dueAt: Date?
        /// The members it rotates over, in turn.
        public var rotation: [String]
        /// Whose turn it is (the next member of the rotation who is not away).
        public var assignee: String?
        public var createdBy: String
        public var createdAt: Date
        public var updatedAt: Date
        /// When a `once` chore was done.
        public var doneAt: Date?
        public var version: Int

        public init(id: String, title: String, description: String?, frequency: Frequency, weekdays: [Int]?, timeZone: String, dueAt: Date?,
                    rotation: [String], assignee: String?, createdBy: String, createdAt: Date, updatedAt: Date, doneAt: Date?, version: Int) {
            self.id = id
            self.title = title
            self.description = description
            self.frequency = frequency
            self.weekdays = weekdays
            self.timeZone = timeZone
            self.dueAt = dueAt
            self.rotation = rotation
            self.assignee = assignee
            self.createdBy = createdBy
            self.createdAt = createdAt
            self.updatedAt = updatedAt
            self.doneAt = doneAt
            self.version = version
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "assignee": .uuid, "createdBy": .uuid, "title": .personName]
    }

    /// One turn of a chore, as it ended: done on time (by its due time), late, or skipped (its next
    /// due time came and nobody had done it).
    public struct ChoreTurn: Codable, Sendable, Equatable, FieldRules {
        public enum Outcome: String, Codable, Sendable, SchemaEnumeration {
            case onTime = "on-time", late, skipped
        }

        public var id: String
        public var choreId: String
        public var dueAt: Date
        public var outcome: Outcome
        /// Whose turn it was.
        public var assignee: String?
        /// Who did it (anyone may); absent when skipped.
        public var doneBy: String?
        public var doneAt: Date?
        public var comment: String?
        /// Household photos of before and after (`GET .../photos/{id}`).
        public var beforePhotoId: String?
        public var afterPhotoId: String?

        public init(id: String, choreId: String, dueAt: Date, outcome: Outcome, assignee: String?, doneBy: String?, doneAt: Date?, comment: String?,
                    beforePhotoId: String? = nil, afterPhotoId: String? = nil) {
            self.id = id
            self.choreId = choreId
            self.dueAt = dueAt
            self.outcome = outcome
            self.assignee = assignee
            self.doneBy = doneBy
            self.doneAt = doneAt
            self.comment = comment
            self.beforePhotoId = beforePhotoId
            self.afterPhotoId = afterPhotoId
        }

        public static let fieldRules: [String: FieldRule] = [
            "id": .uuid, "choreId": .uuid, "assignee": .uuid, "doneBy": .uuid, "beforePhotoId": .uuid, "afterPhotoId": .uuid,
        ]
    }

    /// A member's comment on a chore.
    public struct ChoreComment: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var memberId: String
        public var at: Date
        public var text: String

        public init(id: String, memberId: String, at: Date, text: String) {
            self.id = id
            self.memberId = memberId
            self.at = at
            self.text = text
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "memberId": .uuid]
    }

    /// One member's turns in one week or month.
    public struct ChoreStat: Codable, Sendable, Equatable, FieldRules {
        /// The period's first day, `YYYY-MM-DD` (a Monday for weeks), UTC.
        public var period: String
        public var memberId: String
        public var onTime: Int
        public var late: Int
        public var skipped: Int

        public init(period: String, memberId: String, onTime: Int, late: Int, skipped: Int) {
            self.period = period
            self.memberId = memberId
            self.onTime = onTime
            self.late = late
            self.skipped = skipped
        }

        public static let fieldRules: [String: FieldRule] = ["memberId": .uuid]
    }

    /// The rules of the fields a member types into a chore.
    static let choreInputRules: [String: FieldRule] = [
        "householdId": FieldRule.uuid.described("the household id"), "title": .personName, "description": .text(Bounds.note),
        "weekdays": FieldRule.count(1...7).each(.range(1...7)).described("with weekly: 1 (Monday) to 7 (Sunday)"),
        "timeZone": FieldRule.text(1...64).described("IANA, such as Europe/Dublin; UTC when absent"),
        "rotation": FieldRule.count(1...Bounds.billParts.upperBound).each(.uuid).described("member ids, in turn; the caller alone when absent"),
    ]
}
