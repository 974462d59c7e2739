import Contracts
import Envelope
import Foundation

extension Payments {
    /// A campaign as anyone in the app sees it. Closed by its owner, its texts are gone (the seed's
    /// "having his data deleted"); its money history stays in the ledger.
    public struct Campaign: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        /// Absent once the owner's account is deleted.
        public var owner: Person?
        /// Absent once its owner closed it (its texts are deleted then).
        public var title: String?
        public var story: String?
        public var beneficiary: String?
        public var category: Category
        public var goal: Money
        public var endsAt: Date
        public var state: CampaignState
        public var closedAt: Date?
        public var createdAt: Date
        /// Pass as `version` to change it.
        public var version: Int
        /// What it holds from its donations, net of refunds and disputes (before the processor's fees).
        public var raised: Money
        /// Progress toward the goal, in basis points (10000 is the goal reached; more when exceeded).
        public var progressBasisPoints: Int
        /// Whether the caller bookmarked it.
        public var bookmarked: Bool
        /// The owner's setting (absent for anyone else): a push each week with its progress while it is open.
        public var weeklyProgress: Bool?
        /// Its cover picture (`GET /v1/campaigns/{campaignId}/cover`); absent without one.
        public var cover: Cover?

        public init(id: String, owner: Person?, title: String?, story: String?, beneficiary: String?, category: Category, goal: Money, endsAt: Date,
                    state: CampaignState, closedAt: Date?, createdAt: Date, version: Int, raised: Money, progressBasisPoints: Int, bookmarked: Bool,
                    weeklyProgress: Bool? = nil, cover: Cover? = nil) {
            self.id = id
            self.owner = owner
            self.title = title
            self.story = story
            self.beneficiary = beneficiary
            self.category = category
            self.goal = goal
            self.endsAt = endsAt
            self.state = state
            self.closedAt = closedAt
            self.createdAt = createdAt
            self.version = version
            self.raised = raised
            self.progressBasisPoints = progressBasisPoints
            self.bookmarked = bookmarked
            self.weeklyProgress = weeklyProgress
            self.cover = cover
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid]
    }

    /// A page of campaigns in the order of their numbers (the caller's own, their bookmarks).
    public struct CampaignPage: Codable, Sendable, Equatable, FieldRules {
        public var campaigns: [Campaign]
        public var nextAfter: Int64?

        public init(campaigns: [Campaign], nextAfter: Int64?) {
            self.campaigns = campaigns
            self.nextAfter = nextAfter
        }

        public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
    }

    /// A campaign's figures, all derived from the ledger.
    public struct CampaignStatistics: Codable, Sendable, Equatable {
        /// Every successful donation, as given.
        public var gross: Money
        /// Given back: refunds and disputes.
        public var refunded: Money
        /// What the payment processor kept.
        public var fees: Money
        /// Gross less refunds and fees: what the campaign holds for its beneficiary.
        public var net: Money
        /// Distinct donors, and donations.
        public var donors: Int
        public var donations: Int
        /// The mean donation after refunds (rounded down to the cent); zero without donations.
        public var averageGift: Money
        /// The latest donations, newest first.
        public var recent: [RecentDonation]
        /// Gross less refunds per day, in Europe/Dublin days, oldest first (days without donations left out).
        public var daily: [DailyTotal]

        public init(gross: Money, refunded: Money, fees: Money, net: Money, donors: Int, donations: Int, averageGift: Money, recent: [RecentDonation],
                    daily: [DailyTotal]) {
            self.gross = gross
            self.refunded = refunded
            self.fees = fees
            self.net = net
            self.donors = donors
            self.donations = donations
            self.averageGift = averageGift
            self.recent = recent
            self.daily = daily
        }
    }

    /// One of a campaign's latest donations: its donor by username unless they gave anonymously (or
    /// their account is gone).
    public struct RecentDonation: Codable, Sendable, Equatable {
        public var amount: Money
        public var donor: String?
        public var at: Date

        public init(amount: Money, donor: String?, at: Date) {
            self.amount = amount
            self.donor = donor
            self.at = at
        }
    }

    /// One Europe/Dublin day's donations less their refunds.
    public struct DailyTotal: Codable, Sendable, Equatable {
        /// `yyyy-MM-dd`.
        public var day: String
        public var amount: Money

        public init(day: String, amount: Money) {
            self.day = day
            self.amount = amount
        }
    }

    /// A campaign with its statistics (its detail page).
    public struct CampaignDetail: Codable, Sendable, Equatable {
        public var campaign: Campaign
        public var statistics: CampaignStatistics

        public init(campaign: Campaign, statistics: CampaignStatistics) {
            self.campaign = campaign
            self.statistics = statistics
        }
    }
}
