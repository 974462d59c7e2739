import Contracts
import Envelope
import Foundation
import NotificationsContract

/// The `marketplace-chat` service: the closed university marketplace (listings, the feed and
/// search, its chat) and Nebula's private chat; reviews, reports and their moderation.
public enum MarketplaceChat: ServiceContract {
    public static let name = "marketplace-chat"
    public static let summary =
        "The closed university marketplace (listings with photos, a network's feed and typo-tolerant search, sellers' histories, "
        + "buyer-seller chat) and Nebula's private chat with disappearing messages."
    /// Its signed-in routes are for the marketplace app; the chat's routes also serve Nebula.
    public static let apps = AppScope.only(.marketplace)
    public static let operations: [any OperationDeclaration.Type] = [
        Network.Get.self, Traders.Search.self,
        Listings.Create.self, Listings.Get.self, Listings.Update.self, Listings.Publish.self, Listings.Sell.self, Listings.Remove.self,
        Listings.Search.self, Listings.Mine.self,
        Photos.Upload.self, Photos.Get.self,
        Spots.List.self, Blocks.Set.self, Blocks.Remove.self, Blocks.List.self, ChatBlocks.Set.self, ChatBlocks.Remove.self, ChatBlocks.List.self,
        Following.Set.self, Following.Remove.self, Following.List.self, SavedSearches.Create.self, SavedSearches.List.self, SavedSearches.Delete.self,
        Conversations.Open.self, Conversations.Ask.self, Conversations.List.self, Conversations.Get.self, Conversations.Delete.self, Conversations.Timer.self,
        Messages.Send.self, Messages.SendImage.self, Messages.Image.self, Messages.List.self, Messages.Read.self, Messages.Answer.self,
        Messages.Delete.self,
        Locations.Share.self, Locations.Get.self, Locations.Stop.self,
        Reviews.Create.self, Reviews.List.self,
        Offers.Create.self, Offers.List.self, Offers.Accept.self, Offers.Decline.self, Offers.Counter.self, Live.Sync.self,
        Reports.Create.self, Moderation.ListCases.self, Moderation.GetCase.self, Moderation.Decide.self, Moderation.Lift.self,
        Moderation.ListAppeals.self, Moderation.Answer.self, Moderation.Log.self, Standing.Get.self, Standing.Appeal.self,
        Account.Erase.self,
    ]
    public static let erase: (any AccountEraseOperation.Type)? = Account.Erase.self
    /// Pushes of new listings to followers and saved searches, and of messages (through the outbox).
    public static let calls: [any OperationDeclaration.Type] = [Notifications.Push.Send.self]

    /// The policy an account signs (with auth) before it uses the marketplace.
    public static let rulesPolicy = "marketplace-rules"

    /// The limits of the requests, checked by the gateway (the schema) and the handlers alike.
    public enum Bounds {
        /// A listing's title and description, in Unicode scalars.
        public static let title = 3...100
        public static let description = 0...5_000
        /// Photos of a listing (a published one needs at least one).
        public static let photos = 0...8
        /// The highest price, in minor units (a hundred thousand in the major unit).
        public static let priceMinorUnits: Int64 = 10_000_000
        /// A search's words.
        public static let query = 1...200
        /// A message's text, in Unicode scalars.
        public static let messageText = 1...4_000
        /// A review's text.
        public static let reviewText = 0...1_000
        /// How long after a sale its two sides may review each other; their reviews are shown then at the latest.
        public static let reviewWindow = Duration.seconds(14 * 86_400)
        /// How long a published listing stays in the feed unless renewed.
        public static let listingLifetime = Duration.seconds(30 * 86_400)
        /// An active listing may be renewed in its last days only (no bumping to the top every hour).
        public static let renewWithin = Duration.seconds(7 * 86_400)
        /// What a reporter may add, a moderator's note and an appeal, in Unicode scalars.
        public static let reportDetails = 0...1_000
        public static let moderationNote = 1...2_000
        public static let appealText = 1...2_000
        /// A suspension's days, when it is not until lifted.
        public static let suspensionDays = 1...365
        /// A live location's minutes from now; a share lasts an hour from its start at most.
        public static let liveLocationMinutes = 1...60
        public static let liveLocationShare = Duration.seconds(3_600)
        /// How many distinct reporters hide a listing (or an account's listings) until a moderator decides.
        public static let hidingReporters = 3
        /// How long after a decision its account may appeal it.
        public static let appealWindow = Duration.seconds(30 * 86_400)
    }

    /// How worn an item is.
    public enum Condition: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        case new
        case likeNew = "like_new"
        case good, fair, poor
    }

    /// Where a listing is in its life. Only `active` ones are in the feed.
    public enum ListingState: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        /// Saved, not yet published: only its seller sees it.
        case draft
        /// In the feed until it expires.
        case active
        /// Held for a buyer (an accepted offer).
        case reserved
        /// Sold: in the seller's history; no longer in the feed.
        case sold
        /// Its 30 days ran out: the seller may publish it again.
        case expired
        /// Hidden by moderation until reviewed.
        case hidden
        /// Removed by its seller: gone from every read.
        case removed
    }

    /// A campus of a university network, where listings are picked up.
    public struct Campus: Codable, Sendable, Equatable {
        public var id: String
        public var name: String

        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// A category of the marketplace's list.
    public struct Category: Codable, Sendable, Equatable {
        public var id: String
        public var name: String

        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// Someone who trades on the marketplace, as others see them: an id and a username, nothing more.
    public struct Trader: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var username: String
        /// Their listings in the feed now.
        public var activeListings: Int
        /// Their listings sold.
        public var sold: Int

        public init(id: String, username: String, activeListings: Int, sold: Int) {
            self.id = id
            self.username = username
            self.activeListings = activeListings
            self.sold = sold
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid]
    }
}
