import Contracts
import Envelope
import Foundation

extension Household {
    /// One item of the shopping list as it was when a trip was finished: a copy, which later changes
    /// of the item leave as it was.
    public struct TripItem: Codable, Sendable, Equatable, FieldRules {
        /// The item it was a copy of (it may be gone since): "buy again" takes it while it is there.
        public var itemId: String
        public var list: ListKind
        /// Who wanted it: the member whose personal list it was on; absent for a communal item.
        public var wantedBy: String?
        public var name: String
        public var quantity: Int?
        public var unit: String?
        public var note: String?
        public var category: String?
        public var addedBy: String
        /// Who bought it, when and for how much; absent when it was not bought on the trip.
        public var bought: Purchase?

        public init(itemId: String, list: ListKind, wantedBy: String?, name: String, quantity: Int?, unit: String?, note: String?, category: String?,
                    addedBy: String, bought: Purchase?) {
            self.itemId = itemId
            self.list = list
            self.wantedBy = wantedBy
            self.name = name
            self.quantity = quantity
            self.unit = unit
            self.note = note
            self.category = category
            self.addedBy = addedBy
            self.bought = bought
        }

        public static let fieldRules: [String: FieldRule] = [
            "itemId": .uuid, "wantedBy": FieldRule.uuid.described("a member id; absent for a communal item"), "addedBy": .uuid,
        ]
    }

    /// A finished shopping trip: the shopping list as it was when a member finished it.
    public struct ShoppingTrip: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var finishedAt: Date
        public var finishedBy: String
        /// In the shopping list's order: the communal items, then each member's in the order they joined.
        public var items: [TripItem]

        public init(id: String, finishedAt: Date, finishedBy: String, items: [TripItem]) {
            self.id = id
            self.finishedAt = finishedAt
            self.finishedBy = finishedBy
            self.items = items
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "finishedBy": .uuid]

        /// A trip in a page of trips: what it held, counted.
        public struct Summary: Codable, Sendable, Equatable, FieldRules {
            public var id: String
            public var finishedAt: Date
            public var finishedBy: String
            public var itemCount: Int
            /// How many of its items were bought on the trip.
            public var boughtCount: Int

            public init(id: String, finishedAt: Date, finishedBy: String, itemCount: Int, boughtCount: Int) {
                self.id = id
                self.finishedAt = finishedAt
                self.finishedBy = finishedBy
                self.itemCount = itemCount
                self.boughtCount = boughtCount
            }

            public static let fieldRules: [String: FieldRule] = ["id": .uuid, "finishedBy": .uuid]
        }
    }

    /// Finished shopping trips: the seed's past aggregate lists, kept when a member finishes a trip.
    public enum ShoppingTrips {
        public struct Reference: Codable, Sendable, Equatable, FieldRules {
            public var householdId: String
            public var tripId: String

            public init(householdId: String, tripId: String) {
                self.householdId = householdId
                self.tripId = tripId
            }

            public static let fieldRules: [String: FieldRule] = ["householdId": .uuid, "tripId": FieldRule.uuid.described("the trip id")]
        }

        /// `household.shopping-trips.finish.v1`: the shopping list as it is now is kept, and what
        /// was bought leaves it.
        public enum Finish: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.shopping-trips.finish.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/shopping-trips/finish", name: "householdShoppingTripFinish", access: .member, status: .created,
                errors: [.notFound, .conflict],
                summary: "Finishes a shopping trip: the shopping list as it is now (items, quantities, who wants them, who bought them) is kept in the trips, and what was bought leaves it (it stays on its own list); 409 when nothing on it is bought")]
            public static let idempotency: Idempotency? = .stored()
            public typealias Request = Household.Reference
            public typealias Response = Household.ShoppingTrip
        }

        /// `household.shopping-trips.list.v1`: finished trips, the last finished first.
        public enum List: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.shopping-trips.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/shopping-trips", name: "householdShoppingTrips", access: .member, errors: [.notFound],
                summary: "The household's finished shopping trips, the last finished first, each with its counts (keyset paging); a trip by its id has its items")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var limit: Int?
                public var after: Int64?

                public init(householdId: String, limit: Int? = nil, after: Int64? = nil) {
                    self.householdId = householdId
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = PageRequest.fieldRules.merging(["householdId": .uuid]) { $1 }
                public var page: PageRequest { PageRequest(limit: limit, after: after) }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var trips: [Household.ShoppingTrip.Summary]
                public var nextAfter: Int64?

                public init(trips: [Household.ShoppingTrip.Summary], nextAfter: Int64?) {
                    self.trips = trips
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }

        /// `household.shopping-trips.get.v1`: one finished trip with its items.
        public enum Get: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.shopping-trips.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/shopping-trips/{tripId}", name: "householdShoppingTripGet", access: .member, errors: [.notFound],
                summary: "A finished shopping trip: the shopping list as it was, with who wanted and who bought each item")]
            public typealias Request = Reference
            public typealias Response = Household.ShoppingTrip
        }
    }

    /// The shopping list itself (the aggregate of the current lists).
    public enum ShoppingList {
        /// `household.shopping-list.clear.v1`: everything on the shopping list leaves it.
        public enum Clear: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.shopping-list.clear.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/households/{householdId}/shopping-list", name: "householdShoppingListClear", access: .member, errors: [.notFound],
                summary: "Clears the shopping list: every item on it now leaves it, bought or not (each stays on its own list; a change of an item puts it back)")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds the list cleared and takes nothing off")
            public typealias Request = Household.Reference

            public struct Response: Codable, Sendable, Equatable {
                /// How many items left the shopping list.
                public var cleared: Int

                public init(cleared: Int) { self.cleared = cleared }
            }
        }
    }
}
