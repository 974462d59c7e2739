import Contracts
import Envelope
import Foundation

extension Household {
    /// How a bill is shared among the members it names.
    public enum SplitMethod: String, Codable, Sendable, SchemaEnumeration {
        /// Equal parts; the minor units left over go one each to the first members named.
        case equal
        /// Each part's `value` is its amount in minor units; they add up to the bill's amount.
        case exact
        /// Each part's `value` is its percentage in basis points (3333 is 33.33 %); they add up to 10000.
        case percentage
        /// Each part's `value` is a count of shares (a double room 2, a single 1).
        case shares
    }

    /// One member's part of a bill as asked for: the member and, but for `equal`, a value.
    public struct BillPart: Codable, Sendable, Equatable, FieldRules {
        public var memberId: String
        public var value: Int64?

        public init(memberId: String, value: Int64? = nil) {
            self.memberId = memberId
            self.value = value
        }

        public static let fieldRules: [String: FieldRule] = [
            "memberId": .uuid,
            "value": FieldRule.range(Int64(0)...Bounds.priceMinorUnits)
                .described("minor units (exact), basis points (percentage) or a count (shares); absent for equal"),
        ]
    }

    /// What one member owes of a bill, worked out by the kit's allocation rule so the shares add up
    /// to the amount exactly.
    public struct BillShare: Codable, Sendable, Equatable, FieldRules {
        public var memberId: String
        public var amount: Money

        public init(memberId: String, amount: Money) {
            self.memberId = memberId
            self.amount = amount
        }

        public static let fieldRules: [String: FieldRule] = ["memberId": .uuid]
    }

    /// One entry of a bill's history: who did what to it, and which fields a change touched.
    public struct BillChange: Codable, Sendable, Equatable, FieldRules {
        public enum Action: String, Codable, Sendable, SchemaEnumeration {
            case created, updated, deleted, restored
        }

        public var memberId: String
        public var at: Date
        public var action: Action
        /// For `updated`: the fields that changed (`amount`, `paidBy`, `parts`, ...).
        public var fields: [String]?

        public init(memberId: String, at: Date, action: Action, fields: [String]? = nil) {
            self.memberId = memberId
            self.at = at
            self.action = action
            self.fields = fields
        }

        public static let fieldRules: [String: FieldRule] = ["memberId": .uuid]
    }

    /// A bill a member paid for others (or with them).
    public struct Bill: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var title: String
        public var amount: Money
        /// The member who paid it: the others owe them their shares.
        public var paidBy: String
        /// The day it was paid (or is due), `2026-11-27`.
        public var date: String
        public var category: String?
        public var note: String?
        public var split: SplitMethod
        public var parts: [BillPart]
        public var shares: [BillShare]
        /// `monthly`: a copy is added on the same day each month (rent).
        public var repeats: Repeat?
        /// Made from a shopping trip's bought items, when it was.
        public var fromTrip: Bool
        /// A household photo of the receipt (`GET .../photos/{id}`).
        public var receiptPhotoId: String?
        public var createdBy: String
        public var createdAt: Date
        public var updatedAt: Date
        /// Set while the bill is deleted (it then counts in no balance); a restore clears it.
        public var deletedAt: Date?
        public var version: Int
        /// Oldest first; in the bill's own reads, absent in lists.
        public var history: [BillChange]?

        public init(id: String, title: String, amount: Money, paidBy: String, date: String, category: String?, note: String?, split: SplitMethod,
                    parts: [BillPart], shares: [BillShare], repeats: Repeat?, fromTrip: Bool, receiptPhotoId: String? = nil, createdBy: String, createdAt: Date, updatedAt: Date,
                    deletedAt: Date?, version: Int, history: [BillChange]?) {
            self.id = id
            self.title = title
            self.amount = amount
            self.paidBy = paidBy
            self.date = date
            self.category = category
            self.note = note
            self.split = split
            self.parts = parts
            self.shares = shares
            self.repeats = repeats
            self.fromTrip = fromTrip
            self.receiptPhotoId = receiptPhotoId
            self.createdBy = createdBy
            self.createdAt = createdAt
            self.updatedAt = updatedAt
            self.deletedAt = deletedAt
            self.version = version
            self.history = history
        }

        public static let fieldRules: [String: FieldRule] = [
            "id": .uuid, "paidBy": .uuid, "createdBy": .uuid, "date": Bills.dateRule, "title": .personName, "receiptPhotoId": .uuid,
        ]
    }

    /// How often a bill comes again.
    public enum Repeat: String, Codable, Sendable, SchemaEnumeration {
        case monthly
    }

    /// The rules of the fields a member types into a bill, creating or changing it.
    static let billInputRules: [String: FieldRule] = [
        "householdId": FieldRule.uuid.described("the household id"), "title": .personName, "paidBy": FieldRule.uuid.described("the caller when absent"),
        "date": Bills.dateRule.described("today (UTC) when absent"), "category": .plainText(Bounds.category), "note": .text(Bounds.note),
        "parts": FieldRule.count(Bounds.billParts).described("the members who share it; every member who belongs, equally, when absent"),
        "receiptPhotoId": FieldRule.uuid.described("a household photo uploaded first (POST .../photos)"),
    ]
}
