import Contracts
import Envelope
import Foundation

extension Household {
    /// Which of a household's current grocery lists: the caller's own, or the one everybody shares.
    public enum ListKind: String, Codable, Sendable, SchemaEnumeration {
        case personal, communal
    }

    /// Who bought an item, when, and for how much.
    public struct Purchase: Codable, Sendable, Equatable {
        public var memberId: String
        public var at: Date
        public var price: Money?

        public init(memberId: String, at: Date, price: Money? = nil) {
            self.memberId = memberId
            self.at = at
            self.price = price
        }
    }

    /// One thing to buy.
    public struct GroceryItem: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var listId: String
        public var list: ListKind
        /// Who wants it: the owner of the personal list it is on; absent on the communal list (everyone).
        public var wantedBy: String?
        public var name: String
        public var quantity: Int?
        public var unit: String?
        public var note: String?
        public var category: String?
        /// Kept out of the shopping list the others see (personal lists only).
        public var `private`: Bool
        public var addedBy: String
        public var addedAt: Date
        public var updatedAt: Date
        /// Absent until someone marks it bought.
        public var bought: Purchase?
        /// Increases with every change: an update names the version it read.
        public var version: Int

        public init(id: String, listId: String, list: ListKind, wantedBy: String?, name: String, quantity: Int?, unit: String?, note: String?,
                    category: String?, private: Bool, addedBy: String, addedAt: Date, updatedAt: Date, bought: Purchase?, version: Int) {
            self.id = id
            self.listId = listId
            self.list = list
            self.wantedBy = wantedBy
            self.name = name
            self.quantity = quantity
            self.unit = unit
            self.note = note
            self.category = category
            self.private = `private`
            self.addedBy = addedBy
            self.addedAt = addedAt
            self.updatedAt = updatedAt
            self.bought = bought
            self.version = version
        }

        public static let fieldRules: [String: FieldRule] = [
            "id": .uuid, "listId": .uuid, "wantedBy": FieldRule.uuid.described("a member id; absent on the communal list"), "addedBy": .uuid,
        ]
    }

    /// A grocery list with its items, oldest item first.
    public struct GroceryList: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var kind: ListKind
        /// The member whose personal list it is; absent for a communal list.
        public var ownerId: String?
        public var createdAt: Date
        /// When an item was last added, changed, bought or removed.
        public var updatedAt: Date
        /// When someone finished it (it is then in the history); absent while it is current.
        public var finishedAt: Date?
        public var finishedBy: String?
        public var items: [GroceryItem]

        public init(id: String, kind: ListKind, ownerId: String?, createdAt: Date, updatedAt: Date, finishedAt: Date?, finishedBy: String?,
                    items: [GroceryItem]) {
            self.id = id
            self.kind = kind
            self.ownerId = ownerId
            self.createdAt = createdAt
            self.updatedAt = updatedAt
            self.finishedAt = finishedAt
            self.finishedBy = finishedBy
            self.items = items
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "ownerId": .uuid, "finishedBy": .uuid]
    }

    /// The rules of the fields a member types into an item, adding or changing it.
    static let itemInputRules: [String: FieldRule] = [
        "householdId": FieldRule.uuid.described("the household id"), "name": .personName, "quantity": .range(Bounds.quantity),
        "unit": FieldRule.plainText(Bounds.unit).described("pieces when absent: g, kg, ml, l, pack; empty clears it"),
        "note": FieldRule.text(Bounds.note).described("empty clears it"), "category": FieldRule.plainText(Bounds.category).described("empty clears it"),
    ]
}
