import Contracts
import Foundation
import PaymentsContract
import PostgresSupport
import ServiceKit
import ServiceSupport

extension ServiceDefinition {
    /// `payments`: the fundraising app's campaigns and bookmarks over a double-entry ledger with karma,
    /// and household debts paid in the app.
    public static let payments = ServiceDefinition(
        contract: Payments.self, schema: "payments", settings: Setting.paymentsSettings,
        deployment: ServiceDeployment(about: "The fundraising app: campaigns and bookmarks over a double-entry ledger with karma points"),
        migrations: { try Migration.load(bundle: .module) }
    ) { environment in
        let database = environment.requireDatabase()
        let ledger = Ledger(database: database)
        let campaignStore = CampaignStore(database: database, ledger: ledger)
        let peopleStore = PeopleStore(database: database)
        let access = FundraisingAccess(people: peopleStore)
        let campaigns = CampaignHandlers(database: database, campaigns: campaignStore, figures: CampaignFigures(database: database), access: access)
        let bookmarks = BookmarkHandlers(
            database: database, bookmarks: BookmarkStore(database: database, campaigns: campaignStore), campaigns: campaignStore, access: access)
        let erasure = ErasureHandler(database: database)
        let processor = try environment.settings.paymentProcessor()
        environment.logger.notice("donations are charged through \(processor.name)", metadata: ["processor": "\(processor.name)"])
        let donationStore = DonationStore(database: database, ledger: ledger)
        let receipts = DonationReceipts(database: database, organisation: environment.settings.string(.paymentsProjectOrganisation).flatMap { $0.isEmpty ? nil : $0 })
        let donations = DonationHandlers(
            database: database, donations: donationStore, campaigns: campaignStore, processor: processor, access: access, receipts: receipts,
            stopAfterCharge: try environment.settings.stopsAfterCharge(processor))
        let refunds = RefundHandlers(database: database, refunds: RefundStore(database: database, donations: donationStore), processor: processor, access: access)

        var handlers = OperationHandlers(Payments.self, database: database)
        handlers.once(Payments.Campaigns.Create.self, prepare: campaigns.prepareCreate, apply: campaigns.create)
        handlers.on(Payments.Campaigns.Get.self, campaigns.get)
        handlers.on(Payments.Campaigns.List.self, campaigns.list)
        handlers.on(Payments.Campaigns.Mine.self, campaigns.mine)
        handlers.on(Payments.Campaigns.Update.self, campaigns.update)
        handlers.on(Payments.Campaigns.Close.self, campaigns.close)
        handlers.on(Payments.Covers.Set.self, campaigns.setCover)
        handlers.on(Payments.Covers.Remove.self, campaigns.removeCover)
        handlers.on(Payments.Covers.Get.self, campaigns.cover)
        handlers.on(Payments.Bookmarks.Set.self, bookmarks.set)
        handlers.on(Payments.Bookmarks.Remove.self, bookmarks.remove)
        handlers.on(Payments.Bookmarks.List.self, bookmarks.list)
        let people = PeopleHandlers(database: database, people: peopleStore, campaigns: campaignStore, access: access)
        handlers.on(Payments.People.Get.self, people.get)
        handlers.on(Payments.Donations.Create.self, donations.create)
        handlers.on(Payments.Project.Donate.self, donations.donateToProject)
        handlers.on(Payments.Project.Get.self, campaigns.project)
        handlers.on(Payments.Donations.Get.self, donations.get)
        handlers.on(Payments.Donations.Finish.self, donations.finish)
        handlers.on(Payments.Donations.Mine.self, donations.mine)
        let settleUps = SettleUpHandlers(database: database, donations: donationStore, charges: donations)
        handlers.on(Payments.SettleUps.Create.self, settleUps.create)
        handlers.on(Payments.SettleUps.Get.self, settleUps.get)
        handlers.on(Payments.SettleUps.Finish.self, settleUps.finish)
        handlers.on(Payments.Refunds.Create.self, refunds.create)
        handlers.on(Payments.Refunds.Received.self, refunds.received)
        let webhooks = WebhookHandlers(
            database: database, donations: donations, refunds: refunds, secret: environment.settings.string(.paymentsStripeWebhookSecret).flatMap { $0.isEmpty ? nil : $0 })
        handlers.on(Payments.Webhooks.Stripe.self, webhooks.stripe)
        handlers.on(Payments.Account.Erase.self, erasure.erase)
        let sweep = PeriodicJob("donations.sweep", every: .seconds(60), database: database) { try await donations.sweep(on: $0) }
        let refundSweep = PeriodicJob("refunds.sweep", every: .seconds(60), database: database) { try await refunds.sweep(on: $0) }
        let reconciliation = Reconciliation(database: database, donations: donations, processor: processor, refunds: refunds)
        let reconcile = PeriodicJob("ledger.reconcile", every: .seconds(3_600), database: database) { try await reconciliation.run(on: $0) }
        let reminders = CampaignReminders(database: database, pushes: DonationPushes(database: database))
        let remind = PeriodicJob("campaigns.remind", every: .seconds(3_600), database: database) { try await reminders.run(on: $0) }
        let events = PeriodicJob("webhook-events.prune", every: .seconds(86_400), database: database) { try await webhooks.prune(on: $0) }
        return ServiceParts(handlers: handlers, jobs: [sweep, refundSweep, reconcile, remind, events])
    }
}
