import Contracts
import Envelope
import Foundation

extension Household {
    /// The household's current grocery lists, their history, the shopping list and shopping trips.
    public enum Groceries {
        /// A household and one of its kinds of list.
        public struct ListReference: Codable, Sendable, Equatable, FieldRules {
            public var householdId: String
            public var list: ListKind

            public init(householdId: String, list: ListKind) {
                self.householdId = householdId
                self.list = list
            }

            public static let fieldRules: [String: FieldRule] = ["householdId": FieldRule.uuid.described("the household id")]
        }

        /// `household.groceries.current.v1`: the caller's personal list or the communal one, as it is now.
        public enum Current: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.groceries.current.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/groceries/{list}", name: "householdGroceriesCurrent", access: .member, errors: [.notFound],
                summary: "The caller's current personal grocery list, or the household's communal one")]
            public typealias Request = ListReference
            public typealias Response = Household.GroceryList
        }

        /// `household.groceries.history.v1`: finished lists of one kind, the last finished first.
        public enum History: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.groceries.history.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/groceries/{list}/history", name: "householdGroceriesHistory", access: .member, errors: [.notFound],
                summary: "The caller's finished personal lists, or the household's finished communal ones, the last finished first (keyset paging)")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var list: ListKind
                public var limit: Int?
                public var after: Int64?

                public init(householdId: String, list: ListKind, limit: Int? = nil, after: Int64? = nil) {
                    self.householdId = householdId
                    self.list = list
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = PageRequest.fieldRules.merging(["householdId": .uuid]) { $1 }
                public var page: PageRequest { PageRequest(limit: limit, after: after) }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var lists: [Household.GroceryList]
                public var nextAfter: Int64?

                public init(lists: [Household.GroceryList], nextAfter: Int64?) {
                    self.lists = lists
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }

        /// One member's wanted items on the shopping list (or the communal ones).
        public struct ShoppingGroup: Codable, Sendable, Equatable, FieldRules {
            /// The member who wants these; absent for the communal list's items.
            public var memberId: String?
            public var listId: String
            public var items: [Household.GroceryItem]

            public init(memberId: String?, listId: String, items: [Household.GroceryItem]) {
                self.memberId = memberId
                self.listId = listId
                self.items = items
            }

            public static let fieldRules: [String: FieldRule] = ["memberId": .uuid, "listId": .uuid]
        }

        /// `household.groceries.shopping-list.v1`: the aggregate list one shopper buys from.
        public enum ShoppingList: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.groceries.shopping-list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/shopping-list", name: "householdShoppingList", access: .member, errors: [.notFound],
                summary: "Every member's current personal items and the communal ones, grouped by who wants them (private items left out)")]
            public typealias Request = Household.Reference

            public struct Response: Codable, Sendable, Equatable {
                /// The communal list first, then each member's, in the order they joined; empty lists left out.
                public var groups: [ShoppingGroup]

                public init(groups: [ShoppingGroup]) { self.groups = groups }
            }
        }

        /// `household.groceries.add.v1`: an item on the caller's current personal list or the communal one.
        public enum Add: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.groceries.add.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/groceries/{list}/items", name: "householdGroceryAdd", access: .member, status: .created,
                errors: [.notFound, .conflict],
                summary: "Adds an item to the caller's current personal list or the communal one (the others hear of a communal item)",
                example: #"{"name":"Oat milk","quantity":2,"unit":"l","category":"Dairy"}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var list: ListKind
                public var name: String
                public var quantity: Int?
                public var unit: String?
                public var note: String?
                public var category: String?
                /// Kept out of the shopping list (personal lists only).
                public var `private`: Bool?

                public init(householdId: String, list: ListKind, name: String, quantity: Int? = nil, unit: String? = nil, note: String? = nil,
                            category: String? = nil, private: Bool? = nil) {
                    self.householdId = householdId
                    self.list = list
                    self.name = name
                    self.quantity = quantity
                    self.unit = unit
                    self.note = note
                    self.category = category
                    self.private = `private`
                }

                public static let fieldRules = itemInputRules
            }

            public typealias Response = Household.GroceryItem
        }

        /// `household.groceries.purchases.v1`: bought items, the last bought first, by month and buyer.
        public enum Purchases: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.groceries.purchases.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/purchases", name: "householdPurchases", access: .member, errors: [.notFound],
                summary: "Items bought in the household, the last bought first, optionally in one month (UTC) and by one member (keyset paging)")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                /// `2026-11`: only items bought in that month (UTC).
                public var month: String?
                /// Only items this member bought.
                public var memberId: String?
                public var limit: Int?
                public var after: Int64?

                public init(householdId: String, month: String? = nil, memberId: String? = nil, limit: Int? = nil, after: Int64? = nil) {
                    self.householdId = householdId
                    self.month = month
                    self.memberId = memberId
                    self.limit = limit
                    self.after = after
                }

                public static let monthRule = FieldRule.pattern("^[0-9]{4}-(0[1-9]|1[0-2])$", meaning: "a month: YYYY-MM")
                public static let fieldRules: [String: FieldRule] = PageRequest.fieldRules.merging([
                    "householdId": .uuid, "month": monthRule, "memberId": .uuid,
                ]) { $1 }
                public var page: PageRequest { PageRequest(limit: limit, after: after) }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var items: [Household.GroceryItem]
                public var nextAfter: Int64?

                public init(items: [Household.GroceryItem], nextAfter: Int64?) {
                    self.items = items
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }

        /// `household.groceries.go-shopping.v1`: "I'm going shopping", to the other members.
        public enum GoShopping: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.groceries.go-shopping.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/shopping-trips", name: "householdGoShopping", access: .member, status: .accepted,
                errors: [.notFound, .rateLimited],
                summary: "Tells the other members the caller is going shopping, so they add what they need (at most 6 an hour each)",
                example: #"{"note":"Tesco on Pearse Street, back by 7"}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                /// Where and until when, for the notification.
                public var note: String?

                public init(householdId: String, note: String? = nil) {
                    self.householdId = householdId
                    self.note = note
                }

                public static let fieldRules: [String: FieldRule] = ["householdId": .uuid, "note": .plainText(0...120)]
            }

            public struct Response: Codable, Sendable, Equatable {
                /// How many members were told.
                public var notified: Int

                public init(notified: Int) { self.notified = notified }
            }
        }
    }

    /// One grocery list by its id: the communal ones and the caller's personal ones.
    public enum GroceryLists {
        public struct Reference: Codable, Sendable, Equatable, FieldRules {
            public var householdId: String
            public var listId: String

            public init(householdId: String, listId: String) {
                self.householdId = householdId
                self.listId = listId
            }

            public static let fieldRules: [String: FieldRule] = ["householdId": .uuid, "listId": FieldRule.uuid.described("the list id")]
        }

        /// `household.grocery-lists.get.v1`: a list in detail, current or finished.
        public enum Get: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.grocery-lists.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/grocery-lists/{listId}", name: "householdGroceryListGet", access: .member, errors: [.notFound],
                summary: "A communal list or one of the caller's personal lists, current or finished, with its items")]
            public typealias Request = Reference
            public typealias Response = Household.GroceryList
        }

        /// `household.grocery-lists.finish.v1`: the list goes to the history; the next read starts a new one.
        public enum Finish: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.grocery-lists.finish.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/grocery-lists/{listId}/finish", name: "householdGroceryListFinish", access: .member,
                errors: [.notFound], summary: "Finishes a current list: it moves to the history and a new, empty one becomes current")]
            public static let idempotency: Idempotency? = .repeatable(because: "a finished list is answered as it is")
            public typealias Request = Reference
            public typealias Response = Household.GroceryList
        }

        /// `household.grocery-lists.delete.v1`: a list and its items are gone.
        public enum Delete: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.grocery-lists.delete.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/households/{householdId}/grocery-lists/{listId}", name: "householdGroceryListDelete", access: .member,
                errors: [.notFound], summary: "Deletes a list with its items (the current one: a new, empty one becomes current)")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds no list and answers not_found")
            public typealias Request = Reference

            public struct Response: Codable, Sendable, Equatable {
                public var deleted: Bool

                public init(deleted: Bool) { self.deleted = deleted }
            }
        }
    }

    /// One grocery item by its id: any on the communal lists, the caller's own, and the others'
    /// items that are not private.
    public enum GroceryItems {
        public struct Reference: Codable, Sendable, Equatable, FieldRules {
            public var householdId: String
            public var itemId: String

            public init(householdId: String, itemId: String) {
                self.householdId = householdId
                self.itemId = itemId
            }

            public static let fieldRules: [String: FieldRule] = ["householdId": .uuid, "itemId": FieldRule.uuid.described("the item id")]
        }

        /// `household.grocery-items.get.v1`
        public enum Get: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.grocery-items.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/grocery-items/{itemId}", name: "householdGroceryItemGet", access: .member, errors: [.notFound],
                summary: "One grocery item")]
            public typealias Request = Reference
            public typealias Response = Household.GroceryItem
        }

        /// `household.grocery-items.update.v1`: changes what it says, marks it bought or not, or moves it
        /// to the communal list, naming the version read.
        public enum Update: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.grocery-items.update.v1"
            public static let http = [HTTPBinding(
                .patch, "/v1/households/{householdId}/grocery-items/{itemId}", name: "householdGroceryItemUpdate", access: .member,
                errors: [.notFound, .forbidden, .conflict],
                summary: "Changes an item, marks it bought (with a price) or not, or moves a personal item to the communal list; a stale version is 409 with the item as it is",
                example: #"{"version":1,"bought":true,"price":{"minorUnits":249,"currency":"EUR"}}"#)]
            public static let idempotency: Idempotency? = .repeatable(because: "it sets the same values again, or finds the version moved on")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var itemId: String
                /// The version the change was made on.
                public var version: Int
                public var name: String?
                public var quantity: Int?
                public var unit: String?
                public var note: String?
                public var category: String?
                public var `private`: Bool?
                /// True marks it bought by the caller now; false, not bought.
                public var bought: Bool?
                /// What it cost, with `bought`.
                public var price: Money?
                /// `communal` moves an item of the caller's current personal list to the communal list.
                public var list: ListKind?

                public init(householdId: String, itemId: String, version: Int, name: String? = nil, quantity: Int? = nil, unit: String? = nil,
                            note: String? = nil, category: String? = nil, private: Bool? = nil, bought: Bool? = nil, price: Money? = nil,
                            list: ListKind? = nil) {
                    self.householdId = householdId
                    self.itemId = itemId
                    self.version = version
                    self.name = name
                    self.quantity = quantity
                    self.unit = unit
                    self.note = note
                    self.category = category
                    self.private = `private`
                    self.bought = bought
                    self.price = price
                    self.list = list
                }

                public static let fieldRules: [String: FieldRule] = itemInputRules.merging(["itemId": .uuid, "version": .range(1...Int.max)]) { $1 }
            }

            public typealias Response = Household.GroceryItem
        }

        /// `household.grocery-items.delete.v1`
        public enum Delete: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.grocery-items.delete.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/households/{householdId}/grocery-items/{itemId}", name: "householdGroceryItemDelete", access: .member,
                errors: [.notFound, .forbidden], summary: "Deletes an item of the caller's personal list or of the communal list")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds no item and answers not_found")
            public typealias Request = Reference

            public struct Response: Codable, Sendable, Equatable {
                public var deleted: Bool

                public init(deleted: Bool) { self.deleted = deleted }
            }
        }

        /// `household.grocery-items.buy-again.v1`: a new item like one bought before, on a current list.
        public enum BuyAgain: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.grocery-items.buy-again.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/grocery-items/{itemId}/again", name: "householdGroceryBuyAgain", access: .member,
                status: .created, errors: [.notFound, .conflict],
                summary: "Puts an item like this one (from the history, say) on the caller's current personal list, or the communal one",
                example: #"{"list":"communal"}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var itemId: String
                /// The caller's personal list when absent.
                public var list: ListKind?

                public init(householdId: String, itemId: String, list: ListKind? = nil) {
                    self.householdId = householdId
                    self.itemId = itemId
                    self.list = list
                }

                public static let fieldRules: [String: FieldRule] = ["householdId": .uuid, "itemId": .uuid]
            }

            public typealias Response = Household.GroceryItem
        }
    }
}
