import Contracts
import Envelope
import Foundation

extension Household {
    public enum Chores {
        public struct Reference: Codable, Sendable, Equatable, FieldRules {
            public var householdId: String
            public var choreId: String

            public init(householdId: String, choreId: String) {
                self.householdId = householdId
                self.choreId = choreId
            }

            public static let fieldRules: [String: FieldRule] = ["householdId": .uuid, "choreId": FieldRule.uuid.described("the chore id")]
        }

        /// `household.chores.create.v1`
        public enum Create: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.chores.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/chores", name: "householdChoreCreate", access: .member, status: .created, errors: [.notFound],
                summary: "Creates a chore with its first due time and the members it rotates over; the first of them hears of it and is reminded before it is due",
                example: #"{"title":"Bins out","frequency":"weekly","weekdays":[3],"dueAt":"2026-12-02T19:00:00Z","timeZone":"Europe/Dublin"}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var title: String
                public var description: String?
                public var frequency: Frequency
                public var weekdays: [Int]?
                public var timeZone: String?
                /// The first turn's due time.
                public var dueAt: Date
                public var rotation: [String]?

                public init(householdId: String, title: String, description: String? = nil, frequency: Frequency, weekdays: [Int]? = nil,
                            timeZone: String? = nil, dueAt: Date, rotation: [String]? = nil) {
                    self.householdId = householdId
                    self.title = title
                    self.description = description
                    self.frequency = frequency
                    self.weekdays = weekdays
                    self.timeZone = timeZone
                    self.dueAt = dueAt
                    self.rotation = rotation
                }

                public static let fieldRules = choreInputRules
            }

            public typealias Response = Household.Chore
        }

        /// `household.chores.list.v1`
        public enum List: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.chores.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/chores", name: "householdChoresList", access: .member, errors: [.notFound],
                summary: "The household's chores, the soonest due first (done ones last)")]
            public typealias Request = Household.Reference

            public struct Response: Codable, Sendable, Equatable {
                public var chores: [Household.Chore]

                public init(chores: [Household.Chore]) { self.chores = chores }
            }
        }

        /// `household.chores.get.v1`
        public enum Get: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.chores.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/chores/{choreId}", name: "householdChoreGet", access: .member, errors: [.notFound],
                summary: "One chore")]
            public typealias Request = Reference
            public typealias Response = Household.Chore
        }

        /// `household.chores.update.v1`
        public enum Update: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.chores.update.v1"
            public static let http = [HTTPBinding(
                .patch, "/v1/households/{householdId}/chores/{choreId}", name: "householdChoreUpdate", access: .member, errors: [.notFound, .conflict],
                summary: "Changes a chore, naming the version read (409 with the chore as it is); its reminder moves with it",
                example: #"{"version":1,"dueAt":"2026-12-03T19:00:00Z"}"#)]
            public static let idempotency: Idempotency? = .repeatable(because: "it sets the same values again, or finds the version moved on")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var choreId: String
                public var version: Int
                public var title: String?
                public var description: String?
                public var frequency: Frequency?
                public var weekdays: [Int]?
                public var timeZone: String?
                public var dueAt: Date?
                public var rotation: [String]?

                public init(householdId: String, choreId: String, version: Int, title: String? = nil, description: String? = nil,
                            frequency: Frequency? = nil, weekdays: [Int]? = nil, timeZone: String? = nil, dueAt: Date? = nil, rotation: [String]? = nil) {
                    self.householdId = householdId
                    self.choreId = choreId
                    self.version = version
                    self.title = title
                    self.description = description
                    self.frequency = frequency
                    self.weekdays = weekdays
                    self.timeZone = timeZone
                    self.dueAt = dueAt
                    self.rotation = rotation
                }

                public static let fieldRules: [String: FieldRule] = choreInputRules.merging(["choreId": .uuid, "version": .range(1...Int.max)]) { $1 }
            }

            public typealias Response = Household.Chore
        }

        /// `household.chores.delete.v1`
        public enum Delete: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.chores.delete.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/households/{householdId}/chores/{choreId}", name: "householdChoreDelete", access: .member, errors: [.notFound],
                summary: "Deletes a chore with its turns and comments; its reminder is cancelled")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds no chore and answers not_found")
            public typealias Request = Reference

            public struct Response: Codable, Sendable, Equatable {
                public var deleted: Bool

                public init(deleted: Bool) { self.deleted = deleted }
            }
        }

        /// `household.chores.complete.v1`: the current turn is done; the next member's turn begins.
        public enum Complete: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.chores.complete.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/chores/{choreId}/turns", name: "householdChoreComplete", access: .member, status: .created,
                errors: [.notFound, .conflict],
                summary: "Marks the current turn done by the caller (on time or late), with optional before and after photos; the rotation moves on and the household hears of it",
                example: #"{"comment":"Recycling too"}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var choreId: String
                public var comment: String?
                /// Household photos uploaded first (`POST .../photos`).
                public var beforePhotoId: String?
                public var afterPhotoId: String?
                /// The due time of the turn done, as read: when that turn is over already (two taps, two
                /// roommates at once), 409 with the chore as it is instead of a second turn.
                public var dueAt: Date?

                public init(householdId: String, choreId: String, comment: String? = nil, beforePhotoId: String? = nil, afterPhotoId: String? = nil,
                            dueAt: Date? = nil) {
                    self.householdId = householdId
                    self.choreId = choreId
                    self.comment = comment
                    self.beforePhotoId = beforePhotoId
                    self.afterPhotoId = afterPhotoId
                    self.dueAt = dueAt
                }

                public static let fieldRules: [String: FieldRule] = [
                    "householdId": .uuid, "choreId": .uuid, "comment": .text(Bounds.note), "beforePhotoId": .uuid, "afterPhotoId": .uuid,
                ]
            }

            public typealias Response = Household.ChoreTurn
        }

        /// `household.chores.turns.v1`: a chore's past turns, the last due first.
        public enum Turns: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.chores.turns.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/chores/{choreId}/turns", name: "householdChoreTurns", access: .member, errors: [.notFound],
                summary: "A chore's history: its past turns, done or skipped, the last due first (keyset paging)")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var choreId: String
                public var limit: Int?
                public var after: Int64?

                public init(householdId: String, choreId: String, limit: Int? = nil, after: Int64? = nil) {
                    self.householdId = householdId
                    self.choreId = choreId
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = PageRequest.fieldRules.merging(["householdId": .uuid, "choreId": .uuid]) { $1 }
                public var page: PageRequest { PageRequest(limit: limit, after: after) }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var turns: [Household.ChoreTurn]
                public var nextAfter: Int64?

                public init(turns: [Household.ChoreTurn], nextAfter: Int64?) {
                    self.turns = turns
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }

        /// `household.chores.comment.v1`
        public enum Comment: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.chores.comment.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/chores/{choreId}/comments", name: "householdChoreComment", access: .member, status: .created,
                errors: [.notFound], summary: "Adds a comment to a chore", example: #"{"text":"The green bin is full again"}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var choreId: String
                public var text: String

                public init(householdId: String, choreId: String, text: String) {
                    self.householdId = householdId
                    self.choreId = choreId
                    self.text = text
                }

                public static let fieldRules: [String: FieldRule] = ["householdId": .uuid, "choreId": .uuid, "text": .text(1...Bounds.note.upperBound)]
            }

            public typealias Response = Household.ChoreComment
        }

        /// `household.chores.comments.v1`
        public enum Comments: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.chores.comments.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/chores/{choreId}/comments", name: "householdChoreComments", access: .member, errors: [.notFound],
                summary: "A chore's comments, the newest first (keyset paging)")]
            public typealias Request = Turns.Request

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var comments: [Household.ChoreComment]
                public var nextAfter: Int64?

                public init(comments: [Household.ChoreComment], nextAfter: Int64?) {
                    self.comments = comments
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }

        /// `household.chores.stats.v1`: each member's turns per week or month, as a series for charts.
        public enum Stats: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.chores.stats.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/chore-stats", name: "householdChoreStats", access: .member, errors: [.notFound],
                summary: "Each member's turns done on time, late and skipped, per week or month (UTC), oldest period first")]

            public enum Period: String, Codable, Sendable, SchemaEnumeration {
                case week, month
            }

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var period: Period
                /// `YYYY-MM-DD`: turns due from this day; 12 periods back when absent.
                public var from: String?
                /// Only this chore's turns.
                public var choreId: String?

                public init(householdId: String, period: Period, from: String? = nil, choreId: String? = nil) {
                    self.householdId = householdId
                    self.period = period
                    self.from = from
                    self.choreId = choreId
                }

                public static let fieldRules: [String: FieldRule] = ["householdId": .uuid, "from": Bills.dateRule, "choreId": .uuid]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var stats: [Household.ChoreStat]

                public init(stats: [Household.ChoreStat]) { self.stats = stats }
            }
        }
    }

    public enum Away {
        /// `household.away.set.v1`: the caller is away (their chore turns pass them by) or back.
        public enum Set: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.away.set.v1"
            public static let http = [HTTPBinding(
                .put, "/v1/households/{householdId}/away", name: "householdAwaySet", access: .member, errors: [.notFound],
                summary: "Marks the caller away (chore rotations skip them) or back", example: #"{"away":true}"#)]
            public static let idempotency: Idempotency? = .repeatable(because: "it sets the same flag again")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var away: Bool

                public init(householdId: String, away: Bool) {
                    self.householdId = householdId
                    self.away = away
                }

                public static let fieldRules: [String: FieldRule] = ["householdId": .uuid]
            }

            public typealias Response = Household.View
        }
    }
}
