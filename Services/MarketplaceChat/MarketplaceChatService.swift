import Contracts
import Foundation
import MarketplaceChatContract
import Media
import PostgresSupport
import ServiceKit
import ServiceSupport

extension ServiceDefinition {
    /// `marketplace-chat`: the closed university marketplace (listings, the feed and search, its
    /// chat) and Nebula's private chat.
    public static let marketplaceChat = ServiceDefinition(
        contract: MarketplaceChat.self, schema: "marketplace_chat", settings: [.marketplaceChatKey, .marketplaceChatKeyPrevious],
        deployment: ServiceDeployment(
            about: "The closed university marketplace (listings, the feed and typo-tolerant search, buyer-seller chat) and Nebula's private chat"),
        migrations: { try Migration.load(bundle: .module) }
    ) { environment in
        let database = environment.requireDatabase()
        let ring = try environment.settings.keyRing(current: .marketplaceChatKey, previous: .marketplaceChatKeyPrevious)
        let traders = TraderStore(database: database), listingStore = ListingStore(database: database)
        let media = MediaLibrary(database: database)
        let photoStore = PhotoStore(database: database, media: media)
        let moderationStore = ModerationStore(database: database, keys: ring)
        let access = MarketAccess(traders: traders, moderation: moderationStore), blockStore = BlockStore(database: database), followStore = FollowStore(database: database)
        let conversationStore = ConversationStore(database: database), messageStore = MessageStore(database: database, keys: ring, media: media)
        let reviewStore = ReviewStore(database: database), offerStore = OfferStore(database: database)
        let listings = ListingHandlers(
            database: database, listings: listingStore, photos: photoStore, traders: traders, blocks: blockStore, follows: followStore,
            conversations: conversationStore, offers: offerStore, access: access)
        let photos = PhotoHandlers(database: database, photos: photoStore, listings: listings, access: access)
        let network = NetworkHandlers(
            database: database, traders: traders, photos: photoStore, blocks: blockStore, follows: followStore, conversations: conversationStore,
            reviews: reviewStore, offers: offerStore, moderation: moderationStore, access: access)
        let offers = OfferHandlers(database: database, offers: offerStore, listings: listingStore, blocks: blockStore, access: access)
        let reviews = ReviewHandlers(database: database, reviews: reviewStore, traders: traders, blocks: blockStore, access: access)
        let locationStore = LiveLocationStore(database: database, keys: ring)
        let live = ChatLive.log(database: database, conversations: conversationStore, messages: messageStore, locations: locationStore)
        live.relay(through: environment.events)
        let chatAccess = ChatAccess(market: access, conversations: conversationStore)
        let chat = ChatHandlers(
            database: database, conversations: conversationStore, messages: messageStore, locations: locationStore, listings: listingStore,
            blocks: blockStore, access: chatAccess, live: live)
        let moderation = ModerationHandlers(
            database: database, moderation: moderationStore, listings: listings, messages: messageStore, conversations: conversationStore,
            traders: traders, market: access, chat: chatAccess, live: live)
        let following = FollowHandlers(database: database, follows: followStore, blocks: blockStore, traders: traders, access: access)
        let people = PeopleHandlers(database: database, blocks: blockStore, traders: traders, access: access)

        var handlers = OperationHandlers(MarketplaceChat.self, database: database)
        handlers.on(MarketplaceChat.Network.Get.self, network.network)
        handlers.on(MarketplaceChat.Traders.Search.self, network.searchTraders)
        handlers.once(MarketplaceChat.Listings.Create.self, prepare: listings.prepareCreate, apply: listings.create)
        handlers.on(MarketplaceChat.Listings.Get.self, listings.get)
        handlers.on(MarketplaceChat.Listings.Update.self, listings.update)
        handlers.once(MarketplaceChat.Listings.Publish.self, prepare: { request, _ in request }, apply: listings.publish)
        handlers.on(MarketplaceChat.Listings.Sell.self, listings.sell)
        handlers.on(MarketplaceChat.Listings.Remove.self, listings.remove)
        handlers.on(MarketplaceChat.Listings.Search.self, listings.search)
        handlers.on(MarketplaceChat.Listings.Mine.self, listings.mine)
        handlers.once(MarketplaceChat.Photos.Upload.self, prepare: photos.prepareUpload, apply: photos.upload)
        handlers.on(MarketplaceChat.Photos.Get.self, photos.get)
        handlers.on(MarketplaceChat.Spots.List.self, people.spots)
        handlers.on(MarketplaceChat.Blocks.Set.self, people.block)
        handlers.on(MarketplaceChat.Blocks.Remove.self, people.unblock)
        handlers.on(MarketplaceChat.Blocks.List.self, people.listBlocks)
        handlers.on(MarketplaceChat.ChatBlocks.Set.self, chat.block)
        handlers.on(MarketplaceChat.ChatBlocks.Remove.self, chat.unblock)
        handlers.on(MarketplaceChat.ChatBlocks.List.self, chat.blocked)
        handlers.on(MarketplaceChat.Following.Set.self, following.follow)
        handlers.on(MarketplaceChat.Following.Remove.self, following.unfollow)
        handlers.on(MarketplaceChat.Following.List.self, following.following)
        handlers.once(MarketplaceChat.SavedSearches.Create.self, prepare: following.prepareSave, apply: following.save)
        handlers.on(MarketplaceChat.SavedSearches.List.self, following.searches)
        handlers.on(MarketplaceChat.SavedSearches.Delete.self, following.deleteSearch)
        handlers.on(MarketplaceChat.Conversations.Open.self, chat.open)
        handlers.once(MarketplaceChat.Conversations.Ask.self, prepare: chat.prepareAsk, apply: chat.ask)
        handlers.on(MarketplaceChat.Conversations.List.self, chat.list)
        handlers.on(MarketplaceChat.Conversations.Get.self, chat.get)
        handlers.on(MarketplaceChat.Conversations.Delete.self, chat.delete)
        handlers.on(MarketplaceChat.Conversations.Timer.self, chat.setTimer)
        handlers.once(MarketplaceChat.Messages.Send.self, prepare: chat.prepareSend, apply: chat.send)
        handlers.once(MarketplaceChat.Messages.SendImage.self, prepare: chat.prepareImage, apply: chat.sendImage)
        handlers.on(MarketplaceChat.Messages.Image.self, chat.image)
        handlers.on(MarketplaceChat.Messages.List.self, chat.history)
        handlers.on(MarketplaceChat.Messages.Read.self, chat.read)
        handlers.on(MarketplaceChat.Messages.Answer.self, chat.answerMeeting)
        handlers.on(MarketplaceChat.Messages.Delete.self, chat.deleteMessage)
        handlers.on(MarketplaceChat.Locations.Share.self, chat.shareLocation)
        handlers.on(MarketplaceChat.Locations.Get.self, chat.locations)
        handlers.on(MarketplaceChat.Locations.Stop.self, chat.stopLocation)
        handlers.on(MarketplaceChat.Live.Sync.self, chat.sync)
        handlers.once(MarketplaceChat.Reviews.Create.self, prepare: reviews.prepareCreate, apply: reviews.create)
        handlers.on(MarketplaceChat.Reviews.List.self, reviews.list)
        handlers.once(MarketplaceChat.Offers.Create.self, prepare: offers.prepareCreate, apply: offers.create)
        handlers.on(MarketplaceChat.Offers.List.self, offers.list)
        handlers.on(MarketplaceChat.Offers.Accept.self, offers.accept)
        handlers.on(MarketplaceChat.Offers.Decline.self, offers.decline)
        handlers.on(MarketplaceChat.Offers.Counter.self, offers.counter)
        handlers.once(MarketplaceChat.Reports.Create.self, prepare: moderation.prepareReport, apply: moderation.report)
        handlers.on(MarketplaceChat.Moderation.ListCases.self, moderation.cases)
        handlers.on(MarketplaceChat.Moderation.GetCase.self, moderation.getCase)
        handlers.once(MarketplaceChat.Moderation.Decide.self, prepare: moderation.prepareDecision, apply: moderation.decide)
        handlers.once(MarketplaceChat.Moderation.Lift.self, prepare: moderation.prepareLift, apply: moderation.lift)
        handlers.on(MarketplaceChat.Moderation.ListAppeals.self, moderation.appeals)
        handlers.once(MarketplaceChat.Moderation.Answer.self, prepare: moderation.prepareAnswer, apply: moderation.answer)
        handlers.on(MarketplaceChat.Moderation.Log.self, moderation.log)
        handlers.on(MarketplaceChat.Standing.Get.self, moderation.standing)
        handlers.once(MarketplaceChat.Standing.Appeal.self, prepare: moderation.prepareAppeal, apply: moderation.appeal)
        handlers.on(MarketplaceChat.Account.Erase.self, network.erase)
        let expire = PeriodicJob("listings.expire", every: .seconds(60), database: database) { try await listingStore.expire(on: $0) }
        let loose = PeriodicJob("photos.prune", every: .seconds(3_600), database: database) { try await photoStore.pruneLoose(on: $0) }
        let words = PeriodicJob("words.rebuild", every: .seconds(3_600), database: database) { try await listingStore.rebuildWords(on: $0) }
        // Disappearing messages leave the database within a minute of their last copy's expiry.
        let purge = PeriodicJob("messages.purge", every: .seconds(20), database: database) { try await messageStore.purge(on: $0) }
        let lapse = PeriodicJob("offers.expire", every: .seconds(60), database: database) { try await offerStore.expire(on: $0) }
        // Live locations leave the database within a minute of their expiry.
        let lost = PeriodicJob("live-locations.purge", every: .seconds(20), database: database) { try await locationStore.purge(on: $0) }
        return ServiceParts(handlers: handlers, jobs: [expire, loose, words, purge, lapse, lost, live.pruneJob, .rewrappingAccountKeys(database: database, ring: ring)])
    }
}

extension Setting {
    public static let marketplaceChatKey = Setting(
        "marketplace.chat.key", default: nil,
        help: "32 random bytes in base64 (openssl rand -base64 32): wraps each conversation's key, which seals its messages in the database.",
        isSecret: true, provision: .required(.randomKey))

    public static let marketplaceChatKeyPrevious = Setting.previousKeys(of: .marketplaceChatKey)
}
