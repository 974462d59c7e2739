import Contracts
import Envelope
import Foundation
import NotificationsContract

/// The `household` service: roommates' households, their members and invites (and, as they arrive,
/// grocery lists, chores, bills and a bulletin board).
public enum Household: ServiceContract {
    public static let name = "household"
    public static let summary = "Roommates' households: members, grocery lists, chores, bills and balances, a bulletin board and photos."
    /// Its signed-in routes are for the roommates' app.
    public static let apps = AppScope.only(.household)
    public static let operations: [any OperationDeclaration.Type] = [
        Households.Create.self, Households.List.self, Households.Get.self, Households.Update.self,
        Invites.Create.self, Invites.List.self, Invites.Revoke.self, Invites.Join.self,
        Members.Leave.self, Members.Remove.self, Members.TransferOwnership.self,
        Groceries.Current.self, Groceries.History.self, Groceries.ShoppingList.self, Groceries.Add.self, Groceries.Purchases.self,
        Groceries.GoShopping.self, GroceryLists.Get.self, GroceryLists.Finish.self, GroceryLists.Delete.self,
        GroceryItems.Get.self, GroceryItems.Update.self, GroceryItems.Delete.self, GroceryItems.BuyAgain.self,
        ShoppingTrips.Finish.self, ShoppingTrips.List.self, ShoppingTrips.Get.self, ShoppingList.Clear.self,
        Bills.Create.self, Bills.FromPurchases.self, Bills.List.self, Bills.Get.self, Bills.Update.self, Bills.Delete.self, Bills.Restore.self,
        Balances.Get.self, Balances.Remind.self, Settlements.Create.self, Settlements.Confirm.self, Settlements.List.self,
        Settlements.Payable.self, Settlements.Paid.self,
        Chores.Create.self, Chores.List.self, Chores.Get.self, Chores.Update.self, Chores.Delete.self, Chores.Complete.self, Chores.Turns.self,
        Chores.Comment.self, Chores.Comments.self, Chores.Stats.self, Away.Set.self,
        Photos.Upload.self, Photos.Get.self,
        Board.Create.self, Board.List.self, Board.Get.self, Board.Update.self, Board.Delete.self, Board.Comment.self, Board.Comments.self,
        Activities.List.self,
        Account.Erase.self,
    ]
    public static let erase: (any AccountEraseOperation.Type)? = Account.Erase.self
    /// Pushes to members, and chore reminders (through the outbox).
    public static let calls: [any OperationDeclaration.Type] = [
        Notifications.Push.Send.self, Notifications.Schedule.Set.self, Notifications.Schedule.Cancel.self,
    ]

    /// The limits of the requests, checked by the gateway (the schema) and the handlers alike.
    public enum Bounds {
        /// A household's name, in Unicode scalars.
        public static let name = Validation.nameLength
        /// Minutes before a chore's due time its reminder goes out.
        public static let reminderLeadMinutes = 0...10_080
        /// An invite code: 8 characters of `inviteAlphabet`.
        public static let inviteCodeLength = 8
        /// Invite codes leave out the characters people mistake for others (0 and O, 1, I and L).
        public static let inviteAlphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
        /// A grocery item's quantity, in its unit (500 with `g`) or in pieces.
        public static let quantity = 1...100_000
        /// A grocery item's unit, note and category; empty in a change clears one.
        public static let unit = 0...16
        public static let note = 0...500
        public static let category = 0...40
        /// The highest price of a grocery item or amount of a bill, in minor units (a million in the major unit).
        public static let priceMinorUnits: Int64 = 100_000_000
        /// The members one bill may name (as many as a household may have).
        public static let billParts = 1...500
        /// Items on one grocery list.
        public static let itemsPerList = 300
    }

    /// What a member may do: the owner manages members, invites and settings; a member uses the household.
    public enum Role: String, Codable, Sendable, SchemaEnumeration {
        case owner, member
    }

    /// Someone who belongs or belonged to a household. `accountId` is absent once their account was
    /// deleted: the app shows "a former member", and what they did stays theirs.
    public struct Member: Codable, Sendable, Equatable, FieldRules {
        /// Stable within the household, whatever becomes of the account: history names members by it.
        public var memberId: String
        public var accountId: String?
        public var role: Role
        public var joinedAt: Date
        /// When they left or were removed; absent while they belong.
        public var leftAt: Date?
        /// True while they are away: chore rotations pass them by. Absent otherwise.
        public var away: Bool?

        public init(memberId: String, accountId: String?, role: Role, joinedAt: Date, leftAt: Date? = nil, away: Bool? = nil) {
            self.memberId = memberId
            self.accountId = accountId
            self.role = role
            self.joinedAt = joinedAt
            self.leftAt = leftAt
            self.away = away
        }

        public static let fieldRules: [String: FieldRule] = [
            "memberId": .uuid, "accountId": FieldRule.uuid.described("absent once the account was deleted: a former member"),
        ]
    }

    /// A household as its members see it.
    public struct View: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var name: String
        /// New bills' currency unless a bill names another.
        public var currency: Currency
        /// Whether balances are settled by the fewest transfers (at most members - 1) rather than pair by pair.
        public var simplifyDebts: Bool
        /// Minutes before a chore's due time its reminder goes out.
        public var reminderLeadMinutes: Int
        /// The caller's role.
        public var role: Role
        /// The caller's member id.
        public var memberId: String
        /// Those who belong, oldest first, then those who left.
        public var members: [Member]
        /// Increases with every change of the name or settings: an update names the version it read.
        public var version: Int
        public var createdAt: Date

        public init(id: String, name: String, currency: Currency, simplifyDebts: Bool, reminderLeadMinutes: Int, role: Role, memberId: String,
                    members: [Member], version: Int, createdAt: Date) {
            self.id = id
            self.name = name
            self.currency = currency
            self.simplifyDebts = simplifyDebts
            self.reminderLeadMinutes = reminderLeadMinutes
            self.role = role
            self.memberId = memberId
            self.members = members
            self.version = version
            self.createdAt = createdAt
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "memberId": .uuid, "name": .personName]
    }

    /// The id of a household the caller belongs to.
    public struct Reference: Codable, Sendable, Equatable, FieldRules {
        public var householdId: String

        public init(householdId: String) { self.householdId = householdId }

        public static let fieldRules: [String: FieldRule] = ["householdId": FieldRule.uuid.described("the household id")]
    }
}
