import Contracts
import Envelope
import Foundation

extension MarketplaceChat {
    /// What a report is about.
    public enum ReportSubject: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        /// A listing of the reporter's network.
        case listing
        /// A message the reporter received, in either app's chat.
        case message
        /// A trader of the reporter's network, or someone they chat with.
        case account
    }

    /// Why something is reported.
    public enum ReportReason: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        case spam, scam, harassment, inappropriate
        /// An item the marketplace rules do not allow.
        case prohibited
        /// An account that is not who it says it is.
        case fakeAccount = "fake_account"
        case other
    }

    /// What a moderator decides.
    public enum ModerationAction: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        /// Nothing wrong: a listing hidden by its reports is back.
        case dismiss
        /// The listing is removed, or the message deleted for both.
        case remove
        /// The account is warned; the thing reported stays.
        case warn
        /// The account is suspended from the marketplace (its listings hidden, its messages there
        /// stopped, its use ended) for `days` or until lifted; the thing reported is removed.
        case suspend
        /// A suspension ended early.
        case lift
        /// An appeal answered: the decision stands.
        case uphold
        /// An appeal answered: the decision is undone (a suspension lifted, a removed listing back,
        /// a warning struck).
        case overturn
    }

    /// Where an appeal is.
    public enum AppealState: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        case open, upheld, overturned
    }

    /// One user's report, as moderators see it (not who made it).
    public struct Report: Codable, Sendable, Equatable {
        public var reason: ReportReason
        public var details: String
        public var createdAt: Date

        public init(reason: ReportReason, details: String, createdAt: Date) {
            self.reason = reason
            self.details = details
            self.createdAt = createdAt
        }
    }

    /// What was reported, as it was when first reported (kept sealed until the case closes).
    public struct Snapshot: Codable, Sendable, Equatable {
        public var title: String?
        public var description: String?
        public var price: Money?
        public var username: String?
        public var message: Message?
        /// A reported picture's thumbnail (WebP), as it was.
        public var picture: Data?

        public init(title: String? = nil, description: String? = nil, price: Money? = nil, username: String? = nil, message: Message? = nil,
                    picture: Data? = nil) {
            self.title = title
            self.description = description
            self.price = price
            self.username = username
            self.message = message
            self.picture = picture
        }
    }

    /// The reports about one thing, and what was decided.
    public struct ModerationCase: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        /// Its place in the queue: pass as `after` for older ones.
        public var number: Int64
        public var subject: ReportSubject
        public var subjectId: String
        /// Who answers for it: the listing's seller, the message's sender, the account.
        public var account: Participant
        /// The network it belongs to; absent for a Nebula conversation's message.
        public var university: String?
        public var reporters: Int
        /// Hidden from the network until decided (three users reported it).
        public var hidden: Bool
        public var open: Bool
        public var openedAt: Date
        /// The reports, the latest first (a case's detail only).
        public var reports: [Report]?
        /// What was reported as it was (a case's detail only, while it is open).
        public var snapshot: Snapshot?
        /// The decision that closed it.
        public var decision: ModerationDecision?

        public init(id: String, number: Int64, subject: ReportSubject, subjectId: String, account: Participant, university: String?, reporters: Int,
                    hidden: Bool, open: Bool, openedAt: Date, reports: [Report]? = nil, snapshot: Snapshot? = nil, decision: ModerationDecision? = nil) {
            self.id = id
            self.number = number
            self.subject = subject
            self.subjectId = subjectId
            self.account = account
            self.university = university
            self.reporters = reporters
            self.hidden = hidden
            self.open = open
            self.openedAt = openedAt
            self.reports = reports
            self.snapshot = snapshot
            self.decision = decision
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "subjectId": .uuid]
    }

    /// A moderator's decision: an entry of the audit log.
    public struct ModerationDecision: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        /// Its place in the log: pass as `after` for older ones.
        public var number: Int64
        public var action: ModerationAction
        /// The case it closed (absent for a lift or an appeal's answer).
        public var caseId: String?
        /// The decision an appeal's answer is about.
        public var appealOf: String?
        /// The account it concerns.
        public var account: Participant
        public var moderator: Participant
        public var note: String
        /// The end of a suspension; absent: until lifted.
        public var suspendedUntil: Date?
        public var decidedAt: Date

        public init(id: String, number: Int64, action: ModerationAction, caseId: String?, appealOf: String?, account: Participant, moderator: Participant,
                    note: String, suspendedUntil: Date?, decidedAt: Date) {
            self.id = id
            self.number = number
            self.action = action
            self.caseId = caseId
            self.appealOf = appealOf
            self.account = account
            self.moderator = moderator
            self.note = note
            self.suspendedUntil = suspendedUntil
            self.decidedAt = decidedAt
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "caseId": .uuid, "appealOf": .uuid]
    }

    /// An appeal of a decision by the account it concerns.
    public struct Appeal: Codable, Sendable, Equatable {
        public var decision: ModerationDecision
        /// Its place in the queue: pass as `after` for older ones.
        public var number: Int64
        public var text: String
        public var state: AppealState
        public var createdAt: Date

        public init(decision: ModerationDecision, number: Int64, text: String, state: AppealState, createdAt: Date) {
            self.decision = decision
            self.number = number
            self.text = text
            self.state = state
            self.createdAt = createdAt
        }
    }

    /// What moderation decided about the caller, as they see it.
    public struct Notice: Codable, Sendable, Equatable, FieldRules {
        public var decisionId: String
        public var action: ModerationAction
        public var subject: ReportSubject?
        /// The listing's title, for a decision about a listing.
        public var listingTitle: String?
        public var note: String
        public var suspendedUntil: Date?
        public var decidedAt: Date
        /// The caller's appeal of it, when they made one.
        public var appeal: AppealState?
        /// Whether it may still be appealed (warnings, removals and suspensions, once, within 30 days).
        public var appealable: Bool

        public init(decisionId: String, action: ModerationAction, subject: ReportSubject?, listingTitle: String?, note: String, suspendedUntil: Date?,
                    decidedAt: Date, appeal: AppealState?, appealable: Bool) {
            self.decisionId = decisionId
            self.action = action
            self.subject = subject
            self.listingTitle = listingTitle
            self.note = note
            self.suspendedUntil = suspendedUntil
            self.decidedAt = decidedAt
            self.appeal = appeal
            self.appealable = appealable
        }

        public static let fieldRules: [String: FieldRule] = ["decisionId": .uuid]
    }
}
