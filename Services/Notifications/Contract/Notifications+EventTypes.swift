extension Notifications {
    /// The event types the apps' documents name, with the app and tab each belongs to: what producers
    /// send as `content.eventType` and `content.category`, and what users can mute. A service adds its
    /// own here when it starts sending them.
    public struct EventType: Sendable, Equatable {
        public let name: String
        public let app: App
        public let category: String

        public static let boardPosted = EventType(name: "household.board.posted", app: .household, category: "board")
        public static let boardCommented = EventType(name: "household.board.commented", app: .household, category: "board")
        public static let communalGroceryAdded = EventType(name: "household.grocery.communal-added", app: .household, category: "groceries")
        public static let goingShopping = EventType(name: "household.grocery.shopping", app: .household, category: "groceries")
        public static let choreAssigned = EventType(name: "household.chore.assigned", app: .household, category: "chores")
        public static let choreDone = EventType(name: "household.chore.done", app: .household, category: "chores")
        public static let choreDue = EventType(name: "household.chore.due", app: .household, category: "chores")
        public static let billCreated = EventType(name: "household.bill.created", app: .household, category: "bills")
        public static let debtReminder = EventType(name: "household.debt.reminder", app: .household, category: "bills")
        public static let settlementRecorded = EventType(name: "household.settlement.recorded", app: .household, category: "bills")
        public static let taxDeadline = EventType(name: "tax.deadline.reminder", app: .melon, category: "deadlines")
        public static let chatMessage = EventType(name: "marketplace.chat.message", app: .marketplace, category: "messages")
        public static let privateChatMessage = EventType(name: "nebula.chat.message", app: .nebula, category: "messages")
        public static let offerUpdate = EventType(name: "marketplace.offer.update", app: .marketplace, category: "offers")
        public static let wishlistMatch = EventType(name: "marketplace.wishlist.match", app: .marketplace, category: "wishlist")
        public static let followedUserPosted = EventType(name: "marketplace.followed.posted", app: .marketplace, category: "following")
        public static let moderationNotice = EventType(name: "marketplace.moderation.notice", app: .marketplace, category: "account")
        public static let campaignProgress = EventType(name: "fundraising.campaign.progress", app: .fundraising, category: "campaigns")
        public static let donationReceived = EventType(name: "fundraising.donation.received", app: .fundraising, category: "campaigns")
        public static let campaignMilestone = EventType(name: "fundraising.campaign.milestone", app: .fundraising, category: "campaigns")

        public static let all: [EventType] = [
            boardPosted, boardCommented, communalGroceryAdded, goingShopping, choreAssigned, choreDone, choreDue, billCreated, debtReminder, settlementRecorded, taxDeadline, chatMessage,
            privateChatMessage, offerUpdate, wishlistMatch, followedUserPosted, moderationNotice, campaignProgress, donationReceived, campaignMilestone,
        ]
    }
}
