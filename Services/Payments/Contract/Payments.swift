import Contracts
import Envelope
import Foundation
import HouseholdContract
import NotificationsContract
import PdfEmailContract

/// The `payments` service: the fundraising app's campaigns and bookmarks, and the one place where
/// money moves: a double-entry ledger of donations, refunds and disputes, and karma points, and
/// household debts paid in the app.
public enum Payments: ServiceContract {
    public static let name = "payments"
    public static let summary = "The fundraising app: campaigns, bookmarks, and a double-entry ledger of donations with karma points."
    /// Its signed-in routes are for the fundraising app; the project's donations and settle-ups say otherwise on their routes.
    public static let apps = AppScope.only(.fundraising)
    public static let operations: [any OperationDeclaration.Type] = [
        Campaigns.Create.self, Campaigns.Get.self, Campaigns.List.self, Campaigns.Update.self, Campaigns.Close.self, Campaigns.Mine.self,
        Bookmarks.Set.self, Bookmarks.Remove.self, Bookmarks.List.self, People.Get.self,
        Donations.Create.self, Donations.Get.self, Donations.Finish.self, Donations.Mine.self, Refunds.Create.self, Refunds.Received.self,
        Covers.Set.self, Covers.Remove.self, Covers.Get.self, Project.Get.self, Project.Donate.self,
        SettleUps.Create.self, SettleUps.Get.self, SettleUps.Finish.self,
        Webhooks.Stripe.self,
        Account.Erase.self,
    ]
    public static let erase: (any AccountEraseOperation.Type)? = Account.Erase.self
    /// Pushes through notifications; household's check of a payment in the app, and its settlement;
    /// receipts by email.
    public static let calls: [any OperationDeclaration.Type] = [
        Notifications.Push.Send.self, Household.Settlements.Payable.self, Household.Settlements.Paid.self, PdfEmail.Mail.Send.self,
    ]

    /// Every campaign's currency: the fundraising app is in euros.
    public static let currency = Currency.eur

    /// The limits of the requests, checked by the gateway (the schema) and the handlers alike.
    public enum Bounds {
        /// A campaign's title and beneficiary, in Unicode scalars.
        public static let title = 3...120
        public static let beneficiary = 1...200
        /// A campaign's story (newlines kept).
        public static let story = 1...10_000
        /// A goal, in euro cents: 10 euro to a million.
        public static let goalMinorUnits: ClosedRange<Int64> = 1_000...100_000_000
        /// How far ahead a campaign may end, from its creation or a change.
        public static let longestRun = Duration.seconds(366 * 86_400)
        /// The smallest donation, in euro cents.
        public static let minimumDonation: Int64 = 50
        /// A campaign counts as nearly there from this share of its goal, in basis points (80 %).
        public static let nearlyThere = 8_000
        /// The ledger transfers a walk through the pages of a list on what campaigns raised may span:
        /// a later page is read as of the first, so an older cursor is refused (start again).
        public static let walkSpan: Int64 = 5_000
    }

    /// What a campaign raises money for.
    public enum Category: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        case education, medical, emergency, community, animals, environment, arts, sports, other
    }

    /// Open until its owner closes it or its end date passes; closed, it takes no more donations.
    public enum CampaignState: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        case open, closed
    }

    /// A campaign named in a route's path.
    public struct CampaignReference: Codable, Sendable, Equatable, FieldRules {
        public var campaignId: String

        public init(campaignId: String) { self.campaignId = campaignId }

        public static let fieldRules: [String: FieldRule] = ["campaignId": .uuid]
    }

    /// Someone by username only.
    public struct Person: Codable, Sendable, Equatable, FieldRules {
        public var accountId: String
        public var username: String

        public init(accountId: String, username: String) {
            self.accountId = accountId
            self.username = username
        }

        public static let fieldRules: [String: FieldRule] = ["accountId": .uuid]
    }
}
