import Contracts
import Envelope
import Foundation

extension Household {
    /// Shared bills: who paid, who shares them, their history.
    public enum Bills {
        static let dateRule = FieldRule.pattern("^[0-9]{4}-[0-9]{2}-[0-9]{2}$", meaning: "a day: YYYY-MM-DD")

        /// A household and one of its bills.
        public struct Reference: Codable, Sendable, Equatable, FieldRules {
            public var householdId: String
            public var billId: String

            public init(householdId: String, billId: String) {
                self.householdId = householdId
                self.billId = billId
            }

            public static let fieldRules: [String: FieldRule] = ["householdId": .uuid, "billId": FieldRule.uuid.described("the bill id")]
        }

        /// `household.bills.create.v1`
        public enum Create: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.bills.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/bills", name: "householdBillCreate", access: .member, status: .created, errors: [.notFound],
                summary: "Records a bill a member paid, split equally, by exact amounts, by percentages or by shares; its debtors hear of it",
                example: #"{"title":"Electricity","amount":{"minorUnits":8420,"currency":"EUR"},"split":"equal"}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var title: String
                public var amount: Money
                public var paidBy: String?
                public var date: String?
                public var category: String?
                public var note: String?
                /// `equal` when absent.
                public var split: SplitMethod?
                public var parts: [BillPart]?
                public var repeats: Repeat?
                public var receiptPhotoId: String?

                public init(householdId: String, title: String, amount: Money, paidBy: String? = nil, date: String? = nil, category: String? = nil,
                            note: String? = nil, split: SplitMethod? = nil, parts: [BillPart]? = nil, repeats: Repeat? = nil, receiptPhotoId: String? = nil) {
                    self.householdId = householdId
                    self.title = title
                    self.amount = amount
                    self.paidBy = paidBy
                    self.date = date
                    self.category = category
                    self.note = note
                    self.split = split
                    self.parts = parts
                    self.repeats = repeats
                    self.receiptPhotoId = receiptPhotoId
                }

                public static let fieldRules = billInputRules
            }

            public typealias Response = Household.Bill
        }

        /// `household.bills.from-purchases.v1`: a shopping trip's bought items become one bill.
        public enum FromPurchases: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.bills.from-purchases.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/bills/from-purchases", name: "householdBillFromPurchases", access: .member, status: .created,
                errors: [.notFound],
                summary: "Turns items the caller bought, with their prices, into one bill they paid: a personal item is its owner's, a communal one is shared equally",
                example: #"{"title":"Tesco, Friday","itemIds":["c1d2e3f4-0000-4e5f-8a9b-000000000002"]}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var title: String
                /// Items the caller marked bought, with prices in one currency, not on a bill yet.
                public var itemIds: [String]
                public var date: String?

                public init(householdId: String, title: String, itemIds: [String], date: String? = nil) {
                    self.householdId = householdId
                    self.title = title
                    self.itemIds = itemIds
                    self.date = date
                }

                public static let fieldRules: [String: FieldRule] = [
                    "householdId": .uuid, "title": .personName, "itemIds": FieldRule.count(1...Bounds.itemsPerList).each(.uuid),
                    "date": Bills.dateRule.described("today (UTC) when absent"),
                ]
            }

            public typealias Response = Household.Bill
        }

        /// `household.bills.list.v1`
        public enum List: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.bills.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/bills", name: "householdBillsList", access: .member, errors: [.notFound],
                summary: "The household's bills, the last recorded first (keyset paging); the deleted ones instead with deleted=true")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                /// The deleted bills (to undo a delete) instead of the others.
                public var deleted: Bool?
                public var limit: Int?
                public var after: Int64?

                public init(householdId: String, deleted: Bool? = nil, limit: Int? = nil, after: Int64? = nil) {
                    self.householdId = householdId
                    self.deleted = deleted
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = PageRequest.fieldRules.merging(["householdId": .uuid]) { $1 }
                public var page: PageRequest { PageRequest(limit: limit, after: after) }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var bills: [Household.Bill]
                public var nextAfter: Int64?

                public init(bills: [Household.Bill], nextAfter: Int64?) {
                    self.bills = bills
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }

        /// `household.bills.get.v1`: a bill with its history.
        public enum Get: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.bills.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/bills/{billId}", name: "householdBillGet", access: .member, errors: [.notFound],
                summary: "A bill with its shares and its history (who changed what)")]
            public typealias Request = Reference
            public typealias Response = Household.Bill
        }

        /// `household.bills.update.v1`: any member changes a bill, naming the version read.
        public enum Update: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.bills.update.v1"
            public static let http = [HTTPBinding(
                .patch, "/v1/households/{householdId}/bills/{billId}", name: "householdBillUpdate", access: .member, errors: [.notFound, .conflict],
                summary: "Changes a bill (its history records who changed which fields); a stale version is 409 with the bill as it is",
                example: #"{"version":1,"amount":{"minorUnits":9050,"currency":"EUR"}}"#)]
            public static let idempotency: Idempotency? = .repeatable(because: "it sets the same values again, or finds the version moved on")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var billId: String
                public var version: Int
                public var title: String?
                public var amount: Money?
                public var paidBy: String?
                public var date: String?
                public var category: String?
                public var note: String?
                /// With `parts` (or alone, for `equal` among the same members).
                public var split: SplitMethod?
                public var parts: [BillPart]?
                public var repeats: Repeat?
                /// True: no more copies of a repeating bill.
                public var stopRepeating: Bool?
                /// A new receipt photo (the old one is deleted).
                public var receiptPhotoId: String?

                public init(householdId: String, billId: String, version: Int, title: String? = nil, amount: Money? = nil, paidBy: String? = nil,
                            date: String? = nil, category: String? = nil, note: String? = nil, split: SplitMethod? = nil, parts: [BillPart]? = nil,
                            repeats: Repeat? = nil, stopRepeating: Bool? = nil, receiptPhotoId: String? = nil) {
                    self.householdId = householdId
                    self.billId = billId
                    self.version = version
                    self.title = title
                    self.amount = amount
                    self.paidBy = paidBy
                    self.date = date
                    self.category = category
                    self.note = note
                    self.split = split
                    self.parts = parts
                    self.repeats = repeats
                    self.stopRepeating = stopRepeating
                    self.receiptPhotoId = receiptPhotoId
                }

                public static let fieldRules: [String: FieldRule] = billInputRules.merging([
                    "billId": .uuid, "version": .range(1...Int.max), "parts": FieldRule.count(Bounds.billParts),
                ]) { $1 }
            }

            public typealias Response = Household.Bill
        }

        /// `household.bills.delete.v1`: the bill stops counting; a restore undoes it.
        public enum Delete: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.bills.delete.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/households/{householdId}/bills/{billId}", name: "householdBillDelete", access: .member, errors: [.notFound],
                summary: "Deletes a bill: it counts in no balance until restored (its history keeps who deleted it)")]
            public static let idempotency: Idempotency? = .repeatable(because: "a deleted bill is answered as it is")
            public typealias Request = Reference
            public typealias Response = Household.Bill
        }

        /// `household.bills.restore.v1`: undoes a delete.
        public enum Restore: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.bills.restore.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/bills/{billId}/restore", name: "householdBillRestore", access: .member, errors: [.notFound],
                summary: "Undoes a bill's delete: it counts again")]
            public static let idempotency: Idempotency? = .repeatable(because: "a bill not deleted is answered as it is")
            public typealias Request = Reference
            public typealias Response = Household.Bill
        }
    }
}
