import Contracts
import Envelope
import Foundation

/// The routes of reports, moderation and an account's standing (their types: `MarketplaceChat+Moderation.swift`).
extension MarketplaceChat {
    public enum Reports {
        /// `marketplace-chat.reports.create.v1`
        public enum Create: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.reports.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/reports", name: "reportCreate", access: .signedIn, status: .created, errors: [.notFound, .forbidden, .conflict],
                summary: "Report a listing, a message one received or an account to the moderators; three reporters hide a listing until it is reviewed",
                example: #"{"subject":"listing","id":"1a2b3c4d-0000-4e5f-8a9b-000000000001","reason":"scam","details":"Asks for payment by gift card."}"#, apps: .only(.marketplace, .nebula))]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var subject: ReportSubject
                public var id: String
                public var reason: ReportReason
                public var details: String?

                public init(subject: ReportSubject, id: String, reason: ReportReason, details: String? = nil) {
                    self.subject = subject
                    self.id = id
                    self.reason = reason
                    self.details = details
                }

                public static let fieldRules: [String: FieldRule] = [
                    "id": FieldRule.uuid.described("the listing's, the message's or the account's id"),
                    "details": FieldRule.text(0...Bounds.reportDetails.upperBound).described("what the moderators should know"),
                ]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var subject: ReportSubject
                public var id: String
                public var reportedAt: Date

                public init(subject: ReportSubject, id: String, reportedAt: Date) {
                    self.subject = subject
                    self.id = id
                    self.reportedAt = reportedAt
                }
            }
        }
    }

    public enum Moderation {

        public struct CaseReference: Codable, Sendable, Equatable, FieldRules {
            public var caseId: String

            public init(caseId: String) { self.caseId = caseId }

            public static let fieldRules: [String: FieldRule] = ["caseId": .uuid]
        }

        /// `marketplace-chat.cases.list.v1`
        public enum ListCases: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.cases.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/moderation/cases", name: "moderationCases", access: .signedIn, errors: [.forbidden],
                summary: "Moderators: the open cases, the oldest first (or the closed ones, the latest first)")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                /// The closed cases rather than the open ones.
                public var closed: Bool?
                public var limit: Int?
                /// The previous page's `nextAfter`, of the same list (open or closed).
                public var after: Int64?

                public init(closed: Bool? = nil, limit: Int? = nil, after: Int64? = nil) {
                    self.closed = closed
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = PageRequest.fieldRules
                public var page: PageRequest { PageRequest(limit: limit, after: after) }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var cases: [ModerationCase]
                public var nextAfter: Int64?

                public init(cases: [ModerationCase], nextAfter: Int64?) {
                    self.cases = cases
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }

        /// `marketplace-chat.cases.get.v1`
        public enum GetCase: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.cases.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/moderation/cases/{caseId}", name: "moderationCase", access: .signedIn, errors: [.notFound, .forbidden],
                summary: "Moderators: a case with its reports, what was reported as it was then, and its decision")]
            public typealias Request = CaseReference
            public typealias Response = ModerationCase
        }

        /// `marketplace-chat.cases.decide.v1`
        public enum Decide: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.cases.decide.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/moderation/cases/{caseId}/decision", name: "moderationDecide", access: .signedIn, status: .created,
                errors: [.notFound, .forbidden, .conflict],
                summary: "Moderators: decide an open case (dismiss, remove, warn or suspend), which closes it and enters the audit log",
                example: #"{"action":"suspend","note":"Third scam listing this month.","days":30}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var caseId: String
                public var action: ModerationAction
                public var note: String
                /// A suspension's length; absent: until lifted.
                public var days: Int?

                public init(caseId: String, action: ModerationAction, note: String, days: Int? = nil) {
                    self.caseId = caseId
                    self.action = action
                    self.note = note
                    self.days = days
                }

                public static let fieldRules: [String: FieldRule] = [
                    "caseId": .uuid, "note": FieldRule.text(Bounds.moderationNote).described("why, for the log and the account"),
                    "action": FieldRule.oneOf(["dismiss", "remove", "warn", "suspend"]).described("what is done"),
                    "days": FieldRule.range(Bounds.suspensionDays).described("a suspension's days; until lifted when left out"),
                ]
            }

            public typealias Response = ModerationDecision
        }

        /// `marketplace-chat.suspensions.lift.v1`
        public enum Lift: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.suspensions.lift.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/moderation/suspensions/{accountId}/lift", name: "moderationLift", access: .signedIn, status: .created,
                errors: [.notFound, .forbidden], summary: "Moderators: end an account's suspension now",
                example: #"{"note":"Spoke with the student; the listings were a misunderstanding."}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var accountId: String
                public var note: String

                public init(accountId: String, note: String) {
                    self.accountId = accountId
                    self.note = note
                }

                public static let fieldRules: [String: FieldRule] = [
                    "accountId": .uuid, "note": FieldRule.text(Bounds.moderationNote).described("why, for the log"),
                ]
            }

            public typealias Response = ModerationDecision
        }

        /// `marketplace-chat.appeals.list.v1`
        public enum ListAppeals: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.appeals.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/moderation/appeals", name: "moderationAppeals", access: .signedIn, errors: [.forbidden],
                summary: "Moderators: the open appeals, the oldest first")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var limit: Int?
                public var after: Int64?

                public init(limit: Int? = nil, after: Int64? = nil) {
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = [
                    "limit": PageRequest.fieldRules["limit"]!, "after": FieldRule.range(1...Int64.max).described("the previous page's nextAfter"),
                ]
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var appeals: [Appeal]
                public var nextAfter: Int64?

                public init(appeals: [Appeal], nextAfter: Int64?) {
                    self.appeals = appeals
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }

        /// `marketplace-chat.appeals.decide.v1`
        public enum Answer: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.appeals.decide.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/moderation/appeals/{decisionId}/decision", name: "moderationAppealDecide", access: .signedIn, status: .created,
                errors: [.notFound, .forbidden, .conflict],
                summary: "Moderators: answer an open appeal: uphold the decision, or overturn it (undoing what it did)",
                example: #"{"action":"overturn","note":"The photos were the seller's own."}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var decisionId: String
                /// `uphold` or `overturn`.
                public var action: ModerationAction
                public var note: String

                public init(decisionId: String, action: ModerationAction, note: String) {
                    self.decisionId = decisionId
                    self.action = action
                    self.note = note
                }

                public static let fieldRules: [String: FieldRule] = [
                    "decisionId": .uuid, "action": FieldRule.oneOf(["uphold", "overturn"]).described("uphold or overturn"),
                    "note": FieldRule.text(Bounds.moderationNote).described("why, for the log and the account"),
                ]
            }

            public typealias Response = ModerationDecision
        }

        /// `marketplace-chat.decisions.list.v1`
        public enum Log: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.decisions.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/moderation/log", name: "moderationLog", access: .signedIn, errors: [.forbidden],
                summary: "Moderators: the audit log, every decision with its moderator, the latest first")]

            public typealias Request = PageRequest

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var decisions: [ModerationDecision]
                public var nextAfter: Int64?

                public init(decisions: [ModerationDecision], nextAfter: Int64?) {
                    self.decisions = decisions
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }
    }

    public enum Standing {
        /// `marketplace-chat.standing.get.v1`
        public enum Get: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.standing.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/marketplace/standing", name: "marketplaceStanding", access: .owner,
                summary: "The caller's standing: a suspension in force, and every moderation decision about them with its appeal", apps: .only(.marketplace, .nebula))]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public init() {}
                public static let fieldRules: [String: FieldRule] = [:]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var suspended: Bool
                /// When a suspension in force ends; absent while suspended: until lifted.
                public var suspendedUntil: Date?
                /// The latest first.
                public var notices: [Notice]

                public init(suspended: Bool, suspendedUntil: Date?, notices: [Notice]) {
                    self.suspended = suspended
                    self.suspendedUntil = suspendedUntil
                    self.notices = notices
                }
            }
        }

        /// `marketplace-chat.appeals.create.v1`
        public enum Appeal: OperationDeclaration {
            public static let service = MarketplaceChat.name
            public static let type = "marketplace-chat.appeals.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/marketplace/appeals", name: "marketplaceAppeal", access: .owner, status: .created, errors: [.notFound, .conflict],
                summary: "Appeal a moderation decision about oneself, once, within 30 days: a moderator answers",
                example: #"{"decisionId":"5a6b7c8d-0000-4e5f-8a9b-000000000001","text":"The textbook is mine; I can show the receipt."}"#, apps: .only(.marketplace, .nebula))]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var decisionId: String
                public var text: String

                public init(decisionId: String, text: String) {
                    self.decisionId = decisionId
                    self.text = text
                }

                public static let fieldRules: [String: FieldRule] = [
                    "decisionId": .uuid, "text": FieldRule.text(Bounds.appealText).described("why the decision is wrong"),
                ]
            }

            public typealias Response = Notice
        }
    }
}
