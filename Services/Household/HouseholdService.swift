import Contracts
import Foundation
import HouseholdContract
import Media
import PostgresSupport
import ServiceKit
import ServiceSupport

extension ServiceDefinition {
    /// `household`: roommates' households and their members, grocery lists, chores, bills and balances, a bulletin board and photos.
    public static let household = ServiceDefinition(
        contract: Household.self, schema: "household", settings: Setting.householdSettings, settingPrefixes: ["household"],
        deployment: ServiceDeployment(about: "Roommates' households: grocery lists, chores, bills and balances, a bulletin board"),
        migrations: { try Migration.load(bundle: .module) }
    ) { environment in
        let configuration = try environment.settings.householdConfiguration()
        let database = environment.requireDatabase()
        let households = HouseholdStore(database: database)
        let invites = InviteStore(database: database)
        let access = HouseholdAccess(households: households)
        let householdHandlers = HouseholdHandlers(database: database, households: households, access: access, configuration: configuration)
        let membership = MembershipHandlers(
            database: database, households: households, invites: invites, access: access, householdHandlers: householdHandlers, configuration: configuration)
        let erasure = AccountErasureHandler(database: database, households: households)
        let photoStore = PhotoStore(database: database, media: MediaLibrary(database: database))
        let notifier = HouseholdNotifier(database: database), groceryStore = GroceryStore(database: database), billStore = BillStore(database: database)
        let groceries = GroceryHandlers(database: database, groceries: groceryStore, access: access, notifier: notifier)
        let trips = ShoppingTripHandlers(database: database, trips: ShoppingTripStore(database: database), access: access)
        let bills = BillHandlers(
            database: database, bills: billStore, households: households, groceries: groceryStore, photos: photoStore, access: access, notifier: notifier)
        let photos = PhotoHandlers(database: database, photos: photoStore, access: access)
        let boardStore = BoardStore(database: database, photos: photoStore)
        let board = BoardHandlers(database: database, board: boardStore, photos: photoStore, access: access, notifier: notifier)
        let chores = ChoreHandlers(
            database: database, chores: ChoreStore(database: database), households: households, photos: photoStore, access: access, notifier: notifier)
        let settlementStore = SettlementStore(database: database, bills: billStore)
        let settle = SettleHandlers(
            database: database, bills: billStore, settlements: settlementStore, households: households, access: access, notifier: notifier)
        let inApp = InAppPaymentHandlers(database: database, bills: billStore, settlements: settlementStore, households: households, notifier: notifier)

        var handlers = OperationHandlers(Household.self, database: database)
        handlers.once(Household.Households.Create.self, prepare: householdHandlers.prepareCreate, apply: householdHandlers.create)
        handlers.on(Household.Households.List.self, householdHandlers.list)
        handlers.on(Household.Households.Get.self, householdHandlers.get)
        handlers.on(Household.Households.Update.self, householdHandlers.update)
        handlers.once(Household.Invites.Create.self, prepare: membership.prepareInvite, apply: membership.invite)
        handlers.on(Household.Invites.List.self, membership.listInvites)
        handlers.on(Household.Invites.Revoke.self, membership.revokeInvite)
        handlers.on(Household.Invites.Join.self, membership.join)
        handlers.once(Household.Members.Leave.self, prepare: membership.prepareLeave, apply: membership.leave)
        handlers.on(Household.Members.Remove.self, membership.remove)
        handlers.on(Household.Members.TransferOwnership.self, membership.transferOwnership)
        handlers.on(Household.Groceries.Current.self, groceries.current)
        handlers.on(Household.Groceries.History.self, groceries.history)
        handlers.on(Household.Groceries.ShoppingList.self, groceries.shoppingList)
        handlers.once(Household.Groceries.Add.self, prepare: groceries.prepareAdd, apply: groceries.add)
        handlers.on(Household.Groceries.Purchases.self, groceries.purchases)
        handlers.once(Household.Groceries.GoShopping.self, prepare: groceries.prepareGoShopping, apply: groceries.goShopping)
        handlers.on(Household.GroceryLists.Get.self, groceries.getList)
        handlers.on(Household.GroceryLists.Finish.self, groceries.finish)
        handlers.on(Household.GroceryLists.Delete.self, groceries.deleteList)
        handlers.on(Household.GroceryItems.Get.self, groceries.getItem)
        handlers.on(Household.GroceryItems.Update.self, groceries.updateItem)
        handlers.on(Household.GroceryItems.Delete.self, groceries.deleteItem)
        handlers.once(Household.GroceryItems.BuyAgain.self, prepare: { request, _ in request }, apply: groceries.buyAgain)
        handlers.once(Household.ShoppingTrips.Finish.self, prepare: { request, _ in request }, apply: trips.finish)
        handlers.on(Household.ShoppingTrips.List.self, trips.list)
        handlers.on(Household.ShoppingTrips.Get.self, trips.get)
        handlers.on(Household.ShoppingList.Clear.self, trips.clear)
        handlers.once(Household.Bills.Create.self, prepare: bills.prepareCreate, apply: bills.create)
        handlers.once(Household.Bills.FromPurchases.self, prepare: bills.prepareFromPurchases, apply: bills.fromPurchases)
        handlers.on(Household.Bills.List.self, bills.list)
        handlers.on(Household.Bills.Get.self, bills.get)
        handlers.on(Household.Bills.Update.self, bills.update)
        handlers.on(Household.Bills.Delete.self, bills.delete)
        handlers.on(Household.Bills.Restore.self, bills.restore)
        handlers.on(Household.Balances.Get.self, settle.balances)
        handlers.once(Household.Balances.Remind.self, prepare: { request, _ in request }, apply: settle.remind)
        handlers.once(Household.Settlements.Create.self, prepare: settle.prepareSettle, apply: settle.settle)
        handlers.on(Household.Settlements.Confirm.self, settle.confirm)
        handlers.on(Household.Settlements.List.self, settle.list)
        handlers.on(Household.Settlements.Payable.self, inApp.payable)
        handlers.on(Household.Settlements.Paid.self, inApp.paid)
        handlers.once(Household.Chores.Create.self, prepare: chores.prepareCreate, apply: chores.create)
        handlers.on(Household.Chores.List.self, chores.list)
        handlers.on(Household.Chores.Get.self, chores.get)
        handlers.on(Household.Chores.Update.self, chores.update)
        handlers.on(Household.Chores.Delete.self, chores.delete)
        handlers.once(Household.Chores.Complete.self, prepare: chores.prepareComplete, apply: chores.complete)
        handlers.on(Household.Chores.Turns.self, chores.turns)
        handlers.once(Household.Chores.Comment.self, prepare: chores.prepareComment, apply: chores.comment)
        handlers.on(Household.Chores.Comments.self, chores.comments)
        handlers.on(Household.Chores.Stats.self, chores.stats)
        handlers.on(Household.Away.Set.self, chores.setAway)
        handlers.once(Household.Photos.Upload.self, prepare: photos.prepareUpload, apply: photos.upload)
        handlers.on(Household.Photos.Get.self, photos.get)
        handlers.once(Household.Board.Create.self, prepare: board.prepareCreate, apply: board.create)
        handlers.on(Household.Board.List.self, board.list)
        handlers.on(Household.Board.Get.self, board.get)
        handlers.on(Household.Board.Update.self, board.update)
        handlers.on(Household.Board.Delete.self, board.delete)
        handlers.once(Household.Board.Comment.self, prepare: board.prepareComment, apply: board.comment)
        handlers.on(Household.Board.Comments.self, board.comments)
        handlers.on(Household.Activities.List.self) { request, context in
            let limit = try request.page.checked()
            return try await database.transaction { connection in
                let member = try await access.member(of: request.householdId, context, on: connection)
                let page = try await notifier.activity(of: member.household, category: request.category, limit: limit, before: request.after, on: connection)
                return .init(activity: page.map(\.activity), nextAfter: page.count == limit ? page.last?.seq : nil)
            }
        }
        handlers.on(Household.Account.Erase.self, erasure.erase)
        let prune = PeriodicJob("invites.prune", every: .seconds(600), database: database) { try await invites.prune(on: $0) }
        let repeats = PeriodicJob("bills.repeat", every: .seconds(600), database: database) { try await bills.addDueCopies(on: $0) }
        let missed = PeriodicJob("chores.skip", every: .seconds(300), database: database) { try await chores.skipMissedTurns(on: $0) }
        let expired = PeriodicJob("posts.prune", every: .seconds(600), database: database) { try await boardStore.pruneExpired(on: $0) }
        let loose = PeriodicJob("photos.prune", every: .seconds(3_600), database: database) { try await photoStore.pruneUnattached(on: $0) }
        let history = PeriodicJob("activity.prune", every: .seconds(86_400), database: database) { try await notifier.pruneActivity(on: $0) }
        let weekly = PeriodicJob("debts.weekly", every: .seconds(3_600), database: database) { try await settle.remindWeekly(on: $0) }
        return ServiceParts(handlers: handlers, jobs: [prune, repeats, missed, expired, loose, history, weekly])
    }
}
