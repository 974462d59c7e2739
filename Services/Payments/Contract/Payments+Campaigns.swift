import Contracts
import Envelope
import Foundation

extension Payments {
    public enum Campaigns {
        /// `payments.campaigns.create.v1`
        public enum Create: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.campaigns.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/campaigns", name: "campaignCreate", access: .signedIn, status: .created, errors: [.forbidden, .rateLimited],
                summary: "Starts a campaign: a title, a story, a goal in euros, an end date within a year, a category and a beneficiary",
                example: #"{"title":"New roof for the scout hall","story":"The roof leaks onto the kit.","goal":{"minorUnits":500000,"currency":"EUR"},"#
                    + #""endsAt":"2027-03-01T00:00:00Z","category":"community","beneficiary":"3rd Dublin Scouts"}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var title: String
                public var story: String
                public var goal: Money
                public var endsAt: Date
                public var category: Category
                public var beneficiary: String
                /// A push to the owner each week with the campaign's progress while it is open; true when absent.
                public var weeklyProgress: Bool?

                public init(title: String, story: String, goal: Money, endsAt: Date, category: Category, beneficiary: String, weeklyProgress: Bool? = nil) {
                    self.title = title
                    self.story = story
                    self.goal = goal
                    self.endsAt = endsAt
                    self.category = category
                    self.beneficiary = beneficiary
                    self.weeklyProgress = weeklyProgress
                }

                public static let fieldRules: [String: FieldRule] = [
                    "title": FieldRule.plainText(Bounds.title), "story": FieldRule.text(Bounds.story).described("newlines kept"),
                    "goal": .described("in euros (EUR), 10 to 1,000,000"), "endsAt": .described("after now, within a year"),
                    "beneficiary": FieldRule.plainText(Bounds.beneficiary).described("who receives the money"),
                ]
            }

            public typealias Response = Campaign
        }

        /// `payments.campaigns.get.v1`
        public enum Get: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.campaigns.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/campaigns/{campaignId}", name: "campaign", access: .signedIn, errors: [.notFound, .forbidden],
                summary: "A campaign with its figures from the ledger: gross, refunds, fees, net, donors, the average gift, the latest donations and a daily series")]

            public typealias Request = CampaignReference

            public typealias Response = CampaignDetail
        }

        /// How a list of campaigns is ordered: `oldest` when a list names none (the seed's R7,
        /// "ordered by ascending order of creation time").
        public enum Sort: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
            case newest, oldest
            /// Open campaigns whose end is nearest first.
            case endingSoon = "ending_soon"
            /// The most raised first.
            case mostFunded = "most_funded"
            /// Open campaigns with at least 80 % of their goal, the closest to it first.
            case nearlyThere = "nearly_there"
        }

        /// `payments.campaigns.list.v1`
        public enum List: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.campaigns.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/campaigns", name: "campaignList", access: .signedIn, errors: [.forbidden],
                summary: """
                    Open campaigns, the oldest first unless sort says otherwise (newest, ending soon, most funded, nearly there), by category, or \
                    searched by title (q); \
                    pages stay stable while new campaigns and donations arrive (pass nextAfter as after)
                    """)]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var sort: Sort?
                public var category: Category?
                public var q: String?
                public var limit: Int?
                public var after: String?

                public init(sort: Sort? = nil, category: Category? = nil, q: String? = nil, limit: Int? = nil, after: String? = nil) {
                    self.sort = sort
                    self.category = category
                    self.q = q
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = [
                    "sort": .described("""
                        oldest when left out: ascending order of creation time; most_funded and nearly_there order every page of a walk by what \
                        campaigns had raised at its first page (each shows what it has now)
                        """),
                    "q": FieldRule.text(1...200).described("words of the title"),
                    "limit": FieldRule.range(PageRequest.limits).described("campaigns per page, \(PageRequest.defaultLimit) when left out"),
                    "after": FieldRule.text(1...200).described("""
                        the previous page's nextAfter, with the same sort; for most_funded and nearly_there, refused once over \
                        \(Bounds.walkSpan) transfers were posted to the ledger since the walk's first page
                        """),
                ]
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var campaigns: [Campaign]
                public var nextAfter: String?

                public init(campaigns: [Campaign], nextAfter: String?) {
                    self.campaigns = campaigns
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }

        /// `payments.campaigns.mine.v1`
        public enum Mine: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.campaigns.mine.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/me/campaigns", name: "campaignsMine", access: .signedIn, errors: [.forbidden],
                summary: "The caller's campaigns, open and closed, the newest first")]

            public typealias Request = PageRequest
            public typealias Response = CampaignPage
        }

        /// `payments.campaigns.update.v1`
        public enum Update: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.campaigns.update.v1"
            public static let http = [HTTPBinding(
                .patch, "/v1/campaigns/{campaignId}", name: "campaignUpdate", access: .owner, errors: [.notFound, .forbidden, .conflict],
                summary: "Changes an open campaign of the caller's: the fields given; the goal never below what it raised (409 when the version is stale)",
                example: #"{"version":1,"goal":{"minorUnits":600000,"currency":"EUR"}}"#)]
            public static let idempotency: Idempotency? = .repeatable(because: "the version names the campaign as read: a repeat is stale")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var campaignId: String
                public var version: Int
                public var title: String?
                public var story: String?
                public var goal: Money?
                public var endsAt: Date?
                public var category: Category?
                public var beneficiary: String?
                public var weeklyProgress: Bool?

                public init(campaignId: String, version: Int, title: String? = nil, story: String? = nil, goal: Money? = nil, endsAt: Date? = nil,
                            category: Category? = nil, beneficiary: String? = nil, weeklyProgress: Bool? = nil) {
                    self.campaignId = campaignId
                    self.version = version
                    self.title = title
                    self.story = story
                    self.goal = goal
                    self.endsAt = endsAt
                    self.category = category
                    self.beneficiary = beneficiary
                    self.weeklyProgress = weeklyProgress
                }

                public static let fieldRules: [String: FieldRule] = Create.Request.fieldRules.merging([
                    "campaignId": .uuid, "version": FieldRule.range(1...Int.max).described("the version read"),
                ]) { $1 }
            }

            public typealias Response = Campaign
        }

        /// `payments.campaigns.close.v1`
        public enum Close: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.campaigns.close.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/campaigns/{campaignId}/close", name: "campaignClose", access: .owner, errors: [.notFound, .forbidden],
                summary: "Closes a campaign of the caller's: it takes no more donations and its texts are deleted; its money history stays")]
            public static let idempotency: Idempotency? = .repeatable(because: "a closed campaign stays closed")

            public typealias Request = CampaignReference

            public typealias Response = Campaign
        }
    }
}
