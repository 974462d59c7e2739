import AuthContract
import Bus
import Contracts
import Envelope
import AuthService
import Crypto
import Foundation
import MarketplaceChatContract
@testable import MarketplaceChatService
import Media
import MelonServices
@testable import PaymentsService
import PdfEmailContract
import PdfEmailService
import PostgresNIO
import PostgresSupport
import RefundCalculatorContract
import RefundCalculatorService
import ServiceCatalog
import ServiceKit
import ServiceSupport
import Testing
import TestSupport

/// Every bus operation's examples, checked on the provider side (the real handler) and the consumer
/// side (the caller's types).
// Each example's limit counts its wait at the gate: a bound on a hang, not a speed.
@Suite(.timeLimit(.minutes(10))) struct ContractTests {
    /// Every operation: the products' and the echo fixture's.
    static let operations = ServiceCatalog.operations + Echo.operations

    static let examples: [ContractExample] = {
        let directory = Bundle.module.resourceURL!.appendingPathComponent("Examples")
        return (try? ContractExample.all(in: directory)) ?? []
    }()

    /// Settings of the services under test, as their processes would read them: each required
    /// setting's local value (from the definitions), and the addresses the examples show.
    static let environment = MelonServices.localEnvironment().merging(
        ["MAIL_FROM": "Melon <no-reply@melon.example>", "REFUND_CONTACT_EMAIL": "refunds@redoak.example", "PAYMENTS_STRIPE_WEBHOOK_SECRET": "whsec_example"]) { _, example in example }
    /// The day the examples were written: the refund window is 2022 to 2026.
    static let today = ServiceClock.fixed(RFC3339.date(from: "2026-11-21T14:00:00Z")!)

    /// Runs `body` with the registry that serves `service`'s operations, built from its definition
    /// as its process builds it, on real storage (a fresh schema, migrated) where the service has any.
    static func withProvider(_ service: String, _ body: (OperationRegistry, Database?) async throws -> Void) async throws {
        let definition = try #require(([ServiceDefinition.echo] + MelonServices.all).first { $0.name == service }, "no definition of \(service)")
        guard definition.schema != nil else { return try await body(try await definition.provider(on: nil), nil) }
        try await providers.run {
            let database = try TestDatabase.make(now: today.now)
            try await BusHarness.with([database]) {
                try await body(try await definition.provider(on: database, environment: environment, clock: today), database)
            }
        }
    }

    /// Examples served at once, each on a schema of its own (`TestGate` says why).
    static let providers = TestGate(limit: 6)

    /// What must exist before an example's request is answered (its provider state), by example.
    static let providerStates: [String: @Sendable (Database, JSONValue) async throws -> Void] = [
        "pdf-email.mail.status.v1/queued": { try await givenMail($1, status: "queued", in: $0) },
        "pdf-email.mail.status.v1/sent": { try await givenMail($1, status: "sent", in: $0) },
        "pdf-email.mail.status.v1/failed": { try await givenMail($1, status: "failed", in: $0) },
        "auth.account.register.v1/username-taken": { database, _ in
            try await givenAccount(email: "taken@example.org", username: "taken", in: database)
        },
        "auth.email.verify.v2/verified": { database, request in
            guard case .string(let text)? = request["data"]?["registration"], let attempt = UUID(uuidString: text) else { throw ContractStateError() }
            try await givenRegistration(attempt, email: "ana.byrne@tcd.ie", username: "ana_b", in: database)
            try await givenCode("482913", registration: attempt, in: database)
        },
        "auth.session.login.v2/ok": { database, _ in
            try await givenAccount(email: "ana.byrne@tcd.ie", username: "ana_b", password: "a long walk by the Liffey", in: database)
        },
        "auth.session.refresh.v1/ok": { database, request in
            guard case .string(let token)? = request["data"]?["refreshToken"] else { throw ContractStateError() }
            try await givenSession(refreshToken: token, in: database)
        },
        "auth.session.logout.v1/this-session": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.password.reset.v1/reset": { database, _ in
            try await givenSession(refreshToken: "t", in: database)
            try await givenCode("120456", account: exampleAccount, in: database)
        },
        "auth.me.get.v1/profile": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.me.update.v1/renamed": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.me.delete.v1/deleted": { database, _ in try await givenSession(refreshToken: "t", password: "a long walk by the Liffey", in: database) },
        "auth.me.delete.v1/wrong-password": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.session.logout.v1/all-sessions": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.session.login.v2/rate-limited": { database, _ in
            // The account's logins from every network blocked for 30 s, as auth's back-off leaves them past the free attempts.
            let limit = BackoffLimit("login.account", free: 0, first: .seconds(30), max: .seconds(30), window: .seconds(3600))
            _ = try await database.transaction { try await database.countFailure([BackoffKey(limit, .account("ana.byrne@tcd.ie"))], on: $0) }
        },
        "auth.password.change.v1/changed": { database, _ in
            try await givenSession(refreshToken: "t", password: "a long walk by the Liffey", in: database)
        },
        "auth.password.change.v1/wrong-current": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.events.list.v1/first-page": { database, _ in
            try await givenSession(refreshToken: "t", in: database)
            try await given(
                "INSERT INTO security_events (account_id, kind, ip) VALUES (\(exampleAccount), 'login_failed', '198.51.100.23'), (\(exampleAccount), 'login', '198.51.100.24')",
                in: database)
        },
        "auth.events.list.v1/limit-too-large": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.agreements.list.v1/current": { database, _ in
            try await givenSession(refreshToken: "t", in: database)
            try await given("INSERT INTO agreements VALUES (\(exampleAccount), 'terms', 1, now())", in: database)
        },
        "auth.agreements.sign.v1/signed": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.agreements.sign.v1/not-the-current-version": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.agreements.withdraw.v1/withdrawn": { database, _ in
            try await givenSession(refreshToken: "t", in: database)
            try await given("INSERT INTO agreements VALUES (\(exampleAccount), 'marketing-email', 1, now())", in: database)
        },
        "auth.picture.set.v1/set": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.picture.set.v1/not-what-it-claims": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.picture.get.v1/found": { database, _ in try await givenPicture(in: database) },
        "auth.picture.get.v1/default-picture": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.picture.get.v1/no-such-account": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.users.search.v1/found": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.users.search.v1/query-too-short": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.users.get.v1/found": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.users.get.v1/no-such-account": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "auth.sessions.revoked.v1/first-page": { database, _ in
            try await given(
                """
                INSERT INTO revoked_sessions VALUES ('0c5b7d1e-2f3a-4b5c-8d9e-0a1b2c3d4e5f', now() + interval '16 minutes'),
                    ('1d6c8e2f-3a4b-4c5d-9e0f-1b2c3d4e5f60', now() + interval '16 minutes'), ('2e7d9f30-4b5c-4d6e-8f10-2c3d4e5f6071', now() + interval '1 minute'),
                    ('0a000000-0000-4000-8000-000000000000', now() - interval '1 second')
                """, in: database)
        },
        "auth.picture.delete.v1/deleted": { database, _ in try await givenPicture(in: database) },
        "auth.agreements.withdraw.v1/unknown-policy": { database, _ in try await givenSession(refreshToken: "t", in: database) },
        "refund-calculator.scenario.list.v1/first-page": { database, _ in
            try await givenScenario(UUID(), in: database)
            try await givenScenario(exampleScenario, in: database)
        },
        "refund-calculator.scenario.get.v1/found": { database, _ in try await givenScenario(exampleScenario, in: database) },
        "refund-calculator.scenario.get.v1/someone-elses": { database, _ in try await givenScenario(exampleScenario, owner: UUID(), in: database) },
        "refund-calculator.scenario.update.v1/renamed": { database, _ in try await givenScenario(exampleScenario, in: database) },
        "refund-calculator.scenario.delete.v1/deleted": { database, _ in try await givenScenario(exampleScenario, in: database) },
        "refund-calculator.contact-request.create.v1/rate-limited": { database, _ in
            // Three requests from the address ten seconds before the examples' today, as the limiter counted them.
            let perEmail = RateLimit("contacts.per.email", count: 3, per: .seconds(86_400), message: "")
            let before = today.now().addingTimeInterval(-10)
            for _ in 0..<3 {
                try await database.transaction { try await database.hit(perEmail, [.other("email:aoife@example.ie")], at: before, on: $0) }
            }
        },
        "household.households.list.v1/two-members": { database, _ in try await givenHousehold(in: database) },
        "household.households.get.v1/found": { database, _ in try await givenHousehold(in: database) },
        "household.households.get.v1/someone-elses": { database, _ in try await givenHousehold(owner: UUID(), other: nil, in: database) },
        "household.households.update.v1/renamed": { database, _ in try await givenHousehold(in: database) },
        "household.households.update.v1/stale-version": { database, _ in try await givenHousehold(in: database) },
        "household.invites.create.v1/created": { database, _ in try await givenHousehold(other: nil, in: database) },
        "household.invites.list.v1/one-code": { database, _ in try await givenHousehold(other: nil, invite: "K7PX4M2Q", in: database) },
        "household.invites.revoke.v1/revoked": { database, _ in try await givenHousehold(other: nil, invite: "K7PX4M2Q", in: database) },
        "household.invites.join.v1/joined": { database, _ in
            try await givenHousehold(owner: UUID(uuidString: "7e2d1c0b-3a4f-4b5c-8d6e-9f0a1b2c3d4e")!, other: nil, invite: "K7PX4M2Q", in: database)
        },
        "household.members.leave.v1/last-member": { database, _ in try await givenHousehold(other: nil, in: database) },
        "household.members.leave.v1/owner-with-members": { database, _ in try await givenHousehold(in: database) },
        "household.members.remove.v1/removed": { database, _ in try await givenHousehold(in: database) },
        "household.members.transfer-ownership.v1/transferred": { database, _ in try await givenHousehold(in: database) },
        "household.account.erase.v1/erased": { database, _ in try await givenHousehold(in: database) },
        "household.groceries.current.v1/communal": { database, _ in try await givenGroceries(in: database) },
        "household.groceries.history.v1/first-page": { database, _ in try await givenGroceries(in: database) },
        "household.groceries.shopping-list.v1/two-groups": { database, _ in try await givenGroceries(in: database) },
        "household.groceries.purchases.v1/this-month": { database, _ in try await givenGroceries(in: database) },
        "household.grocery-lists.get.v1/found": { database, _ in try await givenGroceries(in: database) },
        "household.grocery-lists.finish.v1/finished": { database, _ in try await givenGroceries(in: database) },
        "household.grocery-lists.delete.v1/deleted": { database, _ in try await givenGroceries(in: database) },
        "household.grocery-items.get.v1/found": { database, _ in try await givenGroceries(in: database) },
        "household.grocery-items.update.v1/bought": { database, _ in try await givenGroceries(in: database) },
        "household.grocery-items.update.v1/stale-version": { database, _ in try await givenGroceries(in: database) },
        "household.grocery-items.delete.v1/deleted": { database, _ in try await givenGroceries(in: database) },
        "household.grocery-items.buy-again.v1/again": { database, _ in try await givenGroceries(in: database) },
        "household.groceries.add.v1/added": { database, _ in try await givenHousehold(in: database) },
        "household.shopping-trips.finish.v1/finished": { database, _ in try await givenGroceries(in: database) },
        "household.shopping-trips.finish.v1/nothing-bought": { database, _ in try await givenHousehold(in: database) },
        "household.shopping-trips.list.v1/first-page": { database, _ in try await givenTrip(in: database) },
        "household.shopping-trips.get.v1/found": { database, _ in try await givenTrip(in: database) },
        "household.shopping-list.clear.v1/cleared": { database, _ in try await givenGroceries(in: database) },
        "household.activity.list.v1/first-page": { database, _ in
            try await givenPost(in: database)
            try await given(
                """
                INSERT INTO activity (household_id, event_type, category, resource, resource_id, member_id, title, body, at)
                VALUES (\(exampleHousehold), 'household.board.posted', 'board', 'post', '0b1c2d3e-0000-4e5f-8a9b-000000000001',
                        'a1b2c3d4-0000-4e5f-8a9b-000000000001', 'New on the board', 'Party on Saturday', \(today.now()))
                """,
                in: database)
        },
        "household.board.list.v1/first-page": { database, _ in try await givenPost(in: database) },
        "household.board.get.v1/found": { database, _ in try await givenPost(in: database) },
        "household.board.update.v1/pinned": { database, _ in try await givenPost(in: database) },
        "household.board.delete.v1/deleted": { database, _ in try await givenPost(in: database) },
        "household.board.comment.v1/commented": { database, _ in try await givenPost(in: database) },
        "household.board.comments.v1/first-page": { database, _ in try await givenPost(in: database) },
        "household.board.create.v1/posted": { database, _ in try await givenHousehold(in: database) },
        "household.board.create.v1/expired-already": { database, _ in try await givenHousehold(in: database) },
        "household.photos.upload.v1/kept": { database, _ in try await givenHousehold(in: database) },
        "household.photos.get.v1/thumbnail": { database, _ in try await givenPhoto(in: database) },
        "household.chores.list.v1/one-chore": { database, _ in try await givenChore(in: database) },
        "household.chores.get.v1/found": { database, _ in try await givenChore(in: database) },
        "household.chores.update.v1/moved": { database, _ in try await givenChore(in: database) },
        "household.chores.delete.v1/deleted": { database, _ in try await givenChore(in: database) },
        "household.chores.complete.v1/on-time": { database, _ in try await givenChore(in: database) },
        "household.chores.turns.v1/first-page": { database, _ in try await givenChore(in: database) },
        "household.chores.comment.v1/commented": { database, _ in try await givenChore(in: database) },
        "household.chores.comments.v1/first-page": { database, _ in try await givenChore(in: database) },
        "household.chores.stats.v1/by-month": { database, _ in try await givenChore(in: database) },
        "household.chores.create.v1/created": { database, _ in try await givenHousehold(in: database) },
        "household.chores.create.v1/weekly-without-days": { database, _ in try await givenHousehold(in: database) },
        "household.away.set.v1/away": { database, _ in try await givenHousehold(in: database) },
        "household.bills.list.v1/first-page": { database, _ in try await givenBills(in: database) },
        "household.bills.get.v1/found": { database, _ in try await givenBills(in: database) },
        "household.bills.update.v1/changed": { database, _ in try await givenBills(in: database) },
        "household.bills.delete.v1/deleted": { database, _ in try await givenBills(in: database) },
        "household.bills.restore.v1/restored": { database, _ in try await givenBills(in: database) },
        "household.balances.get.v1/one-currency": { database, _ in try await givenBills(in: database) },
        "household.balances.remind.v1/reminded": { database, _ in try await givenBills(in: database) },
        "household.settlements.confirm.v1/confirmed": { database, _ in try await givenBills(in: database) },
        "household.settlements.list.v1/first-page": { database, _ in try await givenBills(in: database) },
        "household.bills.create.v1/created": { database, _ in try await givenHousehold(in: database) },
        "household.bills.create.v1/percentages-short": { database, _ in try await givenHousehold(in: database) },
        "household.settlements.create.v1/received": { database, _ in try await givenHousehold(in: database) },
        "household.bills.from-purchases.v1/billed": { database, _ in try await givenGroceries(in: database) },
        "household.groceries.go-shopping.v1/told": { database, _ in try await givenHousehold(in: database) },
        "notifications.devices.list.v1/one-device": { database, _ in try await givenDevice(in: database) },
        "notifications.devices.delete.v1/deleted": { database, _ in try await givenDevice(in: database) },
        "notifications.devices.delete.v1/someone-elses": { database, _ in try await givenDevice(owner: UUID(), in: database) },
        "notifications.inbox.list.v1/first-page": { database, _ in try await givenNotification(in: database) },
        "notifications.inbox.read.v1/all": { database, _ in try await givenNotification(in: database) },
        "notifications.inbox.badges.v1/unread": { database, _ in try await givenNotification(in: database) },
        "notifications.push.send.v1/queued": { database, _ in try await givenDevice(in: database) },
        "notifications.sessions.end.v1/logged-out": { database, _ in try await givenDevice(in: database) },
        "marketplace-chat.traders.search.v1/by-beginning": { database, _ in try await givenListing(in: database) },
        "marketplace-chat.listings.create.v1/published": { database, _ in try await givenMarketPhoto(in: database) },
        "marketplace-chat.listings.get.v1/found": { database, _ in try await givenListing(in: database) },
        "marketplace-chat.listings.update.v1/cheaper": { database, _ in try await givenListing(in: database) },
        "marketplace-chat.listings.update.v1/stale-version": { database, _ in try await givenListing(in: database) },
        "marketplace-chat.listings.publish.v1/draft-published": { database, _ in try await givenListing(state: "draft", in: database) },
        "marketplace-chat.listings.sell.v1/sold": { database, _ in try await givenListing(in: database) },
        "marketplace-chat.listings.remove.v1/removed": { database, _ in try await givenListing(in: database) },
        "marketplace-chat.listings.search.v1/typo": { database, _ in try await givenListing(in: database) },
        "marketplace-chat.listings.mine.v1/for-sale": { database, _ in try await givenListing(in: database) },
        "marketplace-chat.photos.get.v1/thumbnail": { database, _ in try await givenListing(in: database) },
        "marketplace-chat.account.erase.v1/erased": { database, _ in try await givenListing(in: database) },
        "marketplace-chat.blocks.remove.v1/lifted": { database, _ in try await givenBlock(in: database) },
        "marketplace-chat.blocks.list.v1/one": { database, _ in try await givenBlock(in: database) },
        "marketplace-chat.chat-blocks.remove.v1/lifted": { database, _ in try await givenBlock(in: database) },
        "marketplace-chat.chat-blocks.list.v1/one": { database, _ in try await givenConversation(in: database); try await givenChatBlock(in: database) },
        "marketplace-chat.following.set.v1/followed": { database, _ in try await givenBlock(blocking: false, in: database) },
        "marketplace-chat.following.list.v1/one": { database, _ in
            try await givenBlock(blocking: false, in: database)
            try await given(
                "INSERT INTO follows (follower, followee, created_at) VALUES (\(exampleAccount), '7e2d1c0b-3a4f-4b5c-8d6e-9f0a1b2c3d4e', \(today.now()))",
                in: database)
        },
        "marketplace-chat.conversations.open.v1/asked": { database, _ in
            try await givenListing(in: database)
            try await givenBlock(blocking: false, in: database)
        },
        "marketplace-chat.conversations.ask.v1/asked": { database, _ in
            try await givenListing(in: database)
            try await givenBlock(blocking: false, in: database)
        },
        "marketplace-chat.conversations.list.v1/one": { database, _ in try await givenConversation(in: database) },
        "marketplace-chat.conversations.get.v1/found": { database, _ in try await givenConversation(in: database) },
        "marketplace-chat.conversations.delete.v1/deleted": { database, _ in try await givenConversation(in: database) },
        "marketplace-chat.conversations.timer.v1/thirty-seconds": { database, _ in try await givenConversation(in: database) },
        "marketplace-chat.messages.send.v1/sent": { database, _ in try await givenConversation(in: database) },
        "marketplace-chat.messages.list.v1/first-page": { database, _ in try await givenConversation(in: database) },
        "marketplace-chat.messages.read.v1/read": { database, _ in try await givenConversation(in: database) },
        "marketplace-chat.messages.delete.v1/deleted": { database, _ in try await givenConversation(in: database) },
        "marketplace-chat.messages.answer.v1/accepted": { database, _ in try await givenMeetingProposal(in: database) },
        "payments.campaigns.get.v1/found": { database, _ in try await givenCampaign(in: database) },
        "payments.campaigns.list.v1/newest": { database, _ in try await givenCampaign(in: database) },
        "payments.campaigns.mine.v1/own": { database, _ in try await givenCampaign(in: database) },
        "payments.campaigns.update.v1/renamed": { database, _ in try await givenCampaign(in: database) },
        "payments.campaigns.close.v1/closed": { database, _ in try await givenCampaign(in: database) },
        "payments.bookmarks.set.v1/kept": { database, _ in try await givenCampaign(in: database) },
        "payments.bookmarks.remove.v1/removed": { database, _ in try await givenCampaign(bookmarked: true, in: database) },
        "payments.bookmarks.list.v1/one": { database, _ in try await givenCampaign(bookmarked: true, in: database) },
        "payments.account.erase.v1/erased": { database, _ in try await givenCampaign(in: database) },
        "payments.people.get.v1/found": { database, _ in try await givenCampaign(owner: otherTrader, in: database) },
        "payments.refunds.create.v1/partial": { database, _ in try await givenDonation(toOwnCampaign: true, in: database) },
        "payments.refunds.received.v1/one": { database, _ in try await givenDonation(toOwnCampaign: true, in: database) },
        "payments.donations.create.v1/succeeded": { database, _ in try await givenCampaign(owner: otherTrader, in: database) },
        "payments.donations.get.v1/found": { database, _ in try await givenDonation(in: database) },
        "payments.donations.finish.v1/authenticated": { database, _ in try await givenDonation(authenticating: true, in: database) },
        "payments.donations.mine.v1/one": { database, _ in try await givenDonation(in: database) },
        "payments.covers.set.v1/put": { database, _ in try await givenCampaign(in: database) },
        "payments.covers.remove.v1/removed": { database, _ in try await givenCampaign(covered: true, in: database) },
        "payments.covers.get.v1/thumbnail": { database, _ in try await givenCampaign(owner: otherTrader, covered: true, in: database) },
        "payments.settle-ups.get.v1/found": { database, _ in try await givenSettleUp(in: database) },
        "payments.settle-ups.finish.v1/authenticated": { database, _ in try await givenSettleUp(authenticating: true, in: database) },
        "household.settlements.payable.v1/owed": { database, _ in try await givenBills(in: database) },
        "household.settlements.paid.v1/recorded": { database, _ in try await givenBills(in: database) },
        "marketplace-chat.messages.send-image.v1/sent": { database, _ in try await givenConversation(in: database) },
        "marketplace-chat.messages.image.v1/thumbnail": { database, _ in try await givenPictureMessage(in: database) },
        "marketplace-chat.live-locations.share.v1/shared": { database, _ in try await givenConversation(in: database) },
        "marketplace-chat.live-locations.get.v1/theirs": { database, _ in try await givenLiveLocations(aoifes: false, in: database) },
        "marketplace-chat.live-locations.stop.v1/stopped": { database, _ in try await givenLiveLocations(aoifes: true, in: database) },
        "marketplace-chat.reviews.create.v1/five-stars": { database, _ in try await givenSale(in: database) },
        "marketplace-chat.reviews.list.v1/rated": { database, _ in
            try await givenSale(in: database)
            try await given(
                """
                INSERT INTO reviews (listing_id, author_role, author, subject, university_id, listing_title, stars, text, created_at, shown_at)
                VALUES ('1a2b3c4d-0000-4e5f-8a9b-000000000001', 'buyer', '7e2d1c0b-3a4f-4b5c-8d6e-9f0a1b2c3d4e', \(exampleAccount), 'tcd',
                        'Calculus textbook', 5, 'On time and as described.', \(today.now()), \(today.now().addingTimeInterval(14 * 86_400))),
                       ('1a2b3c4d-0000-4e5f-8a9b-000000000001', 'seller', \(exampleAccount), '7e2d1c0b-3a4f-4b5c-8d6e-9f0a1b2c3d4e', 'tcd',
                        'Calculus textbook', 5, 'Friendly and quick.', \(today.now()), \(today.now().addingTimeInterval(14 * 86_400)))
                """,
                in: database)
        },
        "marketplace-chat.offers.create.v1/open": { database, _ in
            try await givenListing(in: database)
            try await givenBlock(blocking: false, in: database)
        },
        "marketplace-chat.offers.list.v1/seller": { database, _ in try await givenOffer(in: database) },
        "marketplace-chat.offers.accept.v1/accepted": { database, _ in try await givenOffer(in: database) },
        "marketplace-chat.offers.decline.v1/declined": { database, _ in try await givenOffer(in: database) },
        "marketplace-chat.offers.counter.v1/countered": { database, _ in try await givenOffer(in: database) },
        "marketplace-chat.live-chat.sync.v1/caught-up": { database, _ in try await givenLiveMessage(in: database) },
        "marketplace-chat.reports.create.v1/scam": { database, _ in
            try await givenListing(in: database)
            try await givenBlock(blocking: false, in: database)
        },
        "marketplace-chat.cases.list.v1/open": { database, _ in try await givenCase(in: database) },
        "marketplace-chat.cases.get.v1/found": { database, _ in try await givenCase(in: database) },
        "marketplace-chat.cases.decide.v1/suspended": { database, _ in try await givenCase(in: database) },
        "marketplace-chat.suspensions.lift.v1/lifted": { database, _ in try await givenSuspension(in: database) },
        "marketplace-chat.decisions.list.v1/first-page": { database, _ in try await givenSuspension(in: database) },
        "marketplace-chat.standing.get.v1/suspended": { database, _ in try await givenSuspension(in: database) },
        "marketplace-chat.appeals.create.v1/appealed": { database, _ in try await givenSuspension(in: database) },
        "marketplace-chat.appeals.list.v1/one": { database, _ in try await givenSuspension(appealed: true, in: database) },
        "marketplace-chat.appeals.decide.v1/overturned": { database, _ in try await givenSuspension(appealed: true, in: database) },
        "marketplace-chat.saved-searches.list.v1/one": { database, _ in try await givenSavedSearch(in: database) },
        "marketplace-chat.saved-searches.delete.v1/deleted": { database, _ in try await givenSavedSearch(in: database) },
        "notifications.account.erase.v1/erased": { database, _ in
            try await givenDevice(in: database)
            try await givenNotification(in: database)
        },
        "refund-calculator.account.erase.v1/erased": { database, _ in
            try await givenScenario(UUID(), in: database)
            try await givenScenario(exampleScenario, in: database)
            try await givenContactRequest(from: "ana.byrne@tcd.ie", in: database)
        },
    ]

    static let exampleScenario = UUID(uuidString: "2d4f6a8c-1b3e-4c5d-9e7f-0a1b2c3d4e5f")!

    /// A saved scenario of `owner` (the example account unless said).
    static func givenScenario(_ id: UUID, owner: UUID = exampleAccount, in database: Database) async throws {
        try await given(
            """
            INSERT INTO scenarios (id, account_id, name, scenario)
            VALUES (\(id), \(owner), '2024 with the rent credit', '{"taxYear": 2024, "status": "single", "salaryCents": 4320000, "taxPaidCents": 550000}')
            """,
            in: database)
    }

    /// A contact request made just now from `email`.
    static func givenContactRequest(from email: String, in database: Database) async throws {
        try await given(
            """
            INSERT INTO contact_requests (id, name, email, phone, preferred_time, scenario, refund_cents, tax_year, rules_version)
            VALUES (\(UUID()), 'Aoife Byrne', \(email), '087 555 0100', 'morning', '{}', 0, 2025, 'example')
            """,
            in: database)
    }

    /// The example account's session and its picture (the lossless WebP sample, kept).
    static func givenPicture(in database: Database) async throws {
        try await givenSession(refreshToken: "t", in: database)
        let media = MediaLibrary(database: database)
        let image = try await media.process(Data(ImageSamples.webpLossless40x30), mediaType: "image/webp")
        let record = try await database.transaction { try await media.keep(image, account: exampleAccount, on: $0) }
        try await given("INSERT INTO pictures (account_id, media_id, updated_at) VALUES (\(exampleAccount), \(record.id), now())", in: database)
    }

    /// A household-app device of `owner` (the example account unless said), in the example session.
    static let exampleHousehold = UUID(uuidString: "5a1e0c3d-7b2f-4e8a-9c1d-2e3f4a5b6c7d")!

    /// The examples' household, owned by `owner`, with the member `other` (member id …0002) unless nil,
    /// and a valid `invite` code.
    static func givenHousehold(
        owner: UUID = exampleAccount, other: UUID? = UUID(uuidString: "7e2d1c0b-3a4f-4b5c-8d6e-9f0a1b2c3d4e")!, invite: String? = nil, in database: Database
    ) async throws {
        let household = exampleHousehold, now = today.now()
        try await given(
            "INSERT INTO households (id, name, currency, created_at, updated_at) VALUES (\(household), '14 Pearse Street', 'EUR', \(now), \(now))",
            in: database)
        let ownerMember = UUID(uuidString: "a1b2c3d4-0000-4e5f-8a9b-000000000001")!
        try await given(
            "INSERT INTO members (id, household_id, account_id, role, joined_at) VALUES (\(ownerMember), \(household), \(owner), 'owner', \(now))",
            in: database)
        if let other {
            try await given(
                """
                INSERT INTO members (id, household_id, account_id, role, joined_at)
                VALUES (\(UUID(uuidString: "a1b2c3d4-0000-4e5f-8a9b-000000000002")!), \(household), \(other), 'member', \(now))
                """,
                in: database)
        }
        if let invite {
            try await given(
                """
                INSERT INTO invites (code, household_id, created_by, created_at, expires_at)
                VALUES (\(invite), \(household), \(ownerMember), \(now), \(database.later(.seconds(7 * 86_400))))
                """,
                in: database)
        }
    }

    /// The example household's grocery lists: a current communal list with toilet roll on it, the
    /// owner's personal list with oat milk the other member bought this month, and a finished
    /// communal list with coffee.
    static func givenGroceries(in database: Database) async throws {
        try await givenHousehold(in: database)
        let household = exampleHousehold, now = today.now()
        let owner = UUID(uuidString: "a1b2c3d4-0000-4e5f-8a9b-000000000001")!, other = UUID(uuidString: "a1b2c3d4-0000-4e5f-8a9b-000000000002")!
        let (communal, personal, finished) = (
            UUID(uuidString: "b1c2d3e4-0000-4e5f-8a9b-00000000000c")!, UUID(uuidString: "b1c2d3e4-0000-4e5f-8a9b-00000000000a")!,
            UUID(uuidString: "b1c2d3e4-0000-4e5f-8a9b-00000000000f")!)
        try await given(
            """
            INSERT INTO grocery_lists (id, household_id, kind, owner_member, created_at, updated_at, finished_at, finished_by) VALUES
                (\(finished), \(household), 'communal', NULL, \(now), \(now), \(now), \(owner)),
                (\(communal), \(household), 'communal', NULL, \(now), \(now), NULL, NULL),
                (\(personal), \(household), 'personal', \(owner), \(now), \(now), NULL, NULL)
            """,
            in: database)
        try await given(
            """
            INSERT INTO grocery_items (id, list_id, household_id, name, quantity, added_by, added_at, updated_at,
                                       bought_by, bought_at, bought_seq, price_minor, price_currency) VALUES
                ('c1d2e3f4-0000-4e5f-8a9b-000000000003', \(finished), \(household), 'Coffee', 1, \(owner), \(now), \(now),
                 \(owner), \(now), nextval('grocery_purchase_seq'), 899, 'EUR'),
                ('c1d2e3f4-0000-4e5f-8a9b-000000000001', \(communal), \(household), 'Toilet roll', 9, \(other), \(now), \(now),
                 NULL, NULL, NULL, NULL, NULL),
                ('c1d2e3f4-0000-4e5f-8a9b-000000000002', \(personal), \(household), 'Oat milk', 2, \(owner), \(now), \(now),
                 \(other), \(now), nextval('grocery_purchase_seq'), 249, 'EUR')
            """,
            in: database)
    }

    /// A finished shopping trip of the example household (e5f6a7b8-…0001), finished by the owner: the
    /// communal toilet roll, not bought, then the owner's oat milk, which the other member bought.
    static func givenTrip(in database: Database) async throws {
        try await givenGroceries(in: database)
        let trip = UUID(uuidString: "e5f6a7b8-0000-4e5f-8a9b-000000000001")!, now = today.now()
        let owner = UUID(uuidString: "a1b2c3d4-0000-4e5f-8a9b-000000000001")!, other = UUID(uuidString: "a1b2c3d4-0000-4e5f-8a9b-000000000002")!
        try await given(
            "INSERT INTO shopping_trips (id, household_id, finished_by, finished_at) VALUES (\(trip), \(exampleHousehold), \(owner), \(now))",
            in: database)
        try await given(
            """
            INSERT INTO shopping_trip_items (trip_id, place, item_id, kind, wanted_by, name, quantity, added_by,
                                             bought_by, bought_at, price_minor, price_currency) VALUES
                (\(trip), 1, 'c1d2e3f4-0000-4e5f-8a9b-000000000001', 'communal', NULL, 'Toilet roll', 9, \(other), NULL, NULL, NULL, NULL),
                (\(trip), 2, 'c1d2e3f4-0000-4e5f-8a9b-000000000002', 'personal', \(owner), 'Oat milk', 2, \(owner), \(other), \(now), 249, 'EUR')
            """,
            in: database)
    }

    /// The example household's electricity bill of 10.00 EUR, paid by the owner and shared equally
    /// with the other member (who owes 5.00), and the other member's payment of it, not confirmed yet.
    static func givenBills(in database: Database) async throws {
        try await givenHousehold(in: database)
        let household = exampleHousehold, now = today.now(), bill = UUID(uuidString: "d1e2f3a4-0000-4e5f-8a9b-000000000001")!
        let owner = UUID(uuidString: "a1b2c3d4-0000-4e5f-8a9b-000000000001")!, other = UUID(uuidString: "a1b2c3d4-0000-4e5f-8a9b-000000000002")!
        try await given(
            """
            INSERT INTO bills (id, household_id, title, amount_minor, currency, paid_by, bill_date, split, created_by, created_at, updated_at)
            VALUES (\(bill), \(household), 'Electricity', 1000, 'EUR', \(owner), '2026-11-20', 'equal', \(owner), \(now), \(now))
            """,
            in: database)
        try await given(
            "INSERT INTO bill_parts (bill_id, position, member_id, share_minor) VALUES (\(bill), 0, \(owner), 500), (\(bill), 1, \(other), 500)",
            in: database)
        try await given("INSERT INTO bill_changes (bill_id, member_id, at, action) VALUES (\(bill), \(owner), \(now), 'created')", in: database)
        try await given(
            "INSERT INTO debts (household_id, currency, debtor, creditor, amount) VALUES (\(household), 'EUR', \(other), \(owner), 500)", in: database)
        try await given(
            """
            INSERT INTO settlements (id, household_id, from_member, to_member, amount_minor, currency, reference, recorded_by, recorded_at)
            VALUES ('e1f2a3b4-0000-4e5f-8a9b-000000000001', \(household), \(other), \(owner), 500, 'EUR', 'Revolut', \(other), \(now))
            """,
            in: database)
    }

    /// The example household's weekly bins chore, due on 2 December at 19:00 Dublin time, the
    /// owner's turn, with one turn done on time and a comment.
    static func givenChore(in database: Database) async throws {
        try await givenHousehold(in: database)
        let household = exampleHousehold, now = today.now(), chore = UUID(uuidString: "f1a2b3c4-0000-4e5f-8a9b-000000000001")!
        let owner = UUID(uuidString: "a1b2c3d4-0000-4e5f-8a9b-000000000001")!, other = UUID(uuidString: "a1b2c3d4-0000-4e5f-8a9b-000000000002")!
        let due = RFC3339.date(from: "2026-12-02T19:00:00Z")!
        try await given(
            """
            INSERT INTO chores (id, household_id, title, frequency, weekdays, time_zone, anchor_at, due_at, rotation, turn, created_by, created_at, updated_at)
            VALUES (\(chore), \(household), 'Bins out', 'weekly', '{3}', 'Europe/Dublin', \(due), \(due), ARRAY[\(other), \(owner)]::uuid[], 1,
                    \(owner), \(now), \(now))
            """,
            in: database)
        try await given(
            """
            INSERT INTO chore_turns (id, chore_id, household_id, due_at, outcome, assignee, done_by, done_at)
            VALUES (gen_random_uuid(), \(chore), \(household), '2026-11-25T19:00:00Z', 'on-time', \(other), \(other), '2026-11-25T18:30:00Z')
            """,
            in: database)
        try await given(
            "INSERT INTO chore_comments (id, chore_id, member_id, at, text) VALUES (gen_random_uuid(), \(chore), \(other), \(now), 'Done, bins are out')",
            in: database)
    }

    /// A photo of the example household (id 0c1d2e3f-…0001), uploaded by the owner.
    static func givenPhoto(in database: Database) async throws {
        try await givenHousehold(in: database)
        let media = MediaLibrary(database: database), id = UUID(uuidString: "0c1d2e3f-0000-4e5f-8a9b-000000000001")!
        let image = try await media.process(Data(ImageSamples.png40x30), mediaType: "image/png")
        let record = try await database.transaction { try await media.keep(image, account: exampleAccount, on: $0) }
        // The example names the photo by a fixed id: the kept image takes it.
        let (old, new) = (record.id.uuidString.lowercased(), id.uuidString.lowercased())
        try await given("UPDATE media_objects SET id = \(id) WHERE id = \(record.id)", in: database)
        try await given("UPDATE media_blobs SET key = replace(key, \(old), \(new)) WHERE key LIKE \(old + "/%")", in: database)
        try await given(
            """
            INSERT INTO photos (media_id, household_id, uploaded_by, created_at)
            VALUES (\(id), \(exampleHousehold), 'a1b2c3d4-0000-4e5f-8a9b-000000000001', \(today.now()))
            """,
            in: database)
    }

    /// The example account as a trader of Trinity's network (username aoife) with a loose photo
    /// (id 0d1e2f3a-…0001, the PNG sample).
    static func givenMarketPhoto(in database: Database) async throws {
        try await given(
            "INSERT INTO traders (account_id, university_id, username, updated_at) VALUES (\(exampleAccount), 'tcd', 'aoife', \(today.now()))",
            in: database)
        let media = MediaLibrary(database: database), id = UUID(uuidString: "0d1e2f3a-0000-4e5f-8a9b-000000000001")!
        let image = try await media.process(Data(ImageSamples.png40x30), mediaType: "image/png")
        let record = try await database.transaction { try await media.keep(image, account: exampleAccount, on: $0) }
        let (old, new) = (record.id.uuidString.lowercased(), id.uuidString.lowercased())
        try await given("UPDATE media_objects SET id = \(id) WHERE id = \(record.id)", in: database)
        try await given("UPDATE media_blobs SET key = replace(key, \(old), \(new)) WHERE key LIKE \(old + "/%")", in: database)
        try await given("INSERT INTO photos (media_id, uploaded_by, created_at) VALUES (\(id), \(exampleAccount), \(today.now()))", in: database)
    }

    /// 7e2d1c0b-…, a trader of the example account's network (username brian), whom the example
    /// account blocked unless `blocking` is false.
    /// The example trader blocked Brian, with whom she has a conversation.
    static func givenChatBlock(in database: Database) async throws {
        let other = UUID(uuidString: "7e2d1c0b-3a4f-4b5c-8d6e-9f0a1b2c3d4e")!
        try await given("INSERT INTO blocks (blocker, blocked, created_at) VALUES (\(exampleAccount), \(other), \(today.now()))", in: database)
    }

    static func givenBlock(blocking: Bool = true, in database: Database) async throws {
        let other = UUID(uuidString: "7e2d1c0b-3a4f-4b5c-8d6e-9f0a1b2c3d4e")!
        try await given(
            "INSERT INTO traders (account_id, university_id, username, updated_at) VALUES (\(other), 'tcd', 'brian', \(today.now()))", in: database)
        if blocking {
            try await given("INSERT INTO blocks (blocker, blocked, created_at) VALUES (\(exampleAccount), \(other), \(today.now()))", in: database)
        }
    }

    /// The conversation with Brian's live location at the Front Arch for 30 minutes, and Aoife's too with `aoifes`.
    static func givenLiveLocations(aoifes: Bool, in database: Database) async throws {
        try await givenConversation(in: database)
        let key = try #require(environment["MARKETPLACE_CHAT_KEY"].flatMap { Data(base64Encoded: $0) })
        let locations = LiveLocationStore(database: database, keys: KeyRing(current: SymmetricKey(data: key)))
        let conversation = UUID(uuidString: "2c3d4e5f-0000-4e5f-8a9b-000000000001")!
        try await database.transaction { connection in
            for side: Int16 in aoifes ? [0, 1] : [0] {
                try await locations.share(.init(latitude: 53.3446, longitude: -6.259), minutes: 30, in: conversation, side: side, on: connection)
            }
        }
    }

    /// The conversation, and Brian's proposal to meet at the Front Arch (message 3).
    static func givenMeetingProposal(in database: Database) async throws {
        try await givenConversation(in: database)
        let key = try #require(environment["MARKETPLACE_CHAT_KEY"].flatMap { Data(base64Encoded: $0) })
        let messages = MessageStore(database: database, keys: KeyRing(current: SymmetricKey(data: key)))
        let conversation = UUID(uuidString: "2c3d4e5f-0000-4e5f-8a9b-000000000001")!
        try await database.transaction { connection in
            let meeting = MarketplaceChat.Meeting(spotId: "front-arch", name: "Front Arch", point: .init(latitude: 53.3446, longitude: -6.259))
            _ = try await messages.append(.init(meeting: meeting), to: conversation, from: 0, timerSeconds: 0, flagged: false, on: connection)
            try await connection.query(
                "UPDATE messages SET id = '3d4e5f6a-0000-4e5f-8a9b-000000000004' WHERE conversation_id = \(conversation) AND seq = 3", logger: database.logger)
        }
    }

    static let exampleCampaign = UUID(uuidString: "5c6d7e8f-0000-4e5f-8a9b-000000000001")!
    static let otherTrader = UUID(uuidString: "7e2d1c0b-3a4f-4b5c-8d6e-9f0a1b2c3d4e")!

    /// The example account's donation 6d7e8f9a-…0001 of 25 euro to Brian's campaign (or Brian's to the
    /// example account's own), as the sandbox charged it: succeeded, or waiting for the donor's 3-D Secure.
    static func givenDonation(authenticating: Bool = false, toOwnCampaign: Bool = false, in database: Database) async throws {
        let (owner, donor) = toOwnCampaign ? (exampleAccount, otherTrader) : (otherTrader, exampleAccount)
        try await givenCampaign(owner: owner, in: database)
        try await givenCharge("6d7e8f9a-0000-4e5f-8a9b-000000000001", of: 2_500, authenticating: authenticating, in: database) { donations, charge, connection in
            if toOwnCampaign { try await PeopleStore(database: database).record(donor, username: "brian", on: connection) }
            return try await donations.open(campaign: exampleCampaign, donor: donor, anonymous: false, gross: 2_500, charge: charge, on: connection)
        }
    }

    /// The example account's payment 6d7e8f9a-…0002 of 5 euro in the household app to the example
    /// household's owner (member …0001, Brian here), as the sandbox charged it: succeeded, or waiting
    /// for the payer's 3-D Secure.
    static func givenSettleUp(authenticating: Bool = false, in database: Database) async throws {
        let parties = DonationStore.SettleUpParties(
            household: exampleHousehold, payer: exampleAccount, payerMember: UUID(uuidString: "a1b2c3d4-0000-4e5f-8a9b-000000000002")!, payee: otherTrader,
            payeeMember: UUID(uuidString: "a1b2c3d4-0000-4e5f-8a9b-000000000001")!)
        try await givenCharge("6d7e8f9a-0000-4e5f-8a9b-000000000002", of: 500, authenticating: authenticating, in: database) { donations, charge, connection in
            try await donations.open(settleUp: parties, gross: 500, charge: charge, on: connection)
        }
    }

    /// Charge `id` of `gross` cents, opened by `open`, as the sandbox charged it: succeeded, or
    /// waiting for the payer's 3-D Secure.
    static func givenCharge(
        _ id: String, of gross: Int64, authenticating: Bool, in database: Database,
        open: @Sendable (DonationStore, DonationStore.Charge, PostgresConnection) async throws -> UUID
    ) async throws {
        let donations = DonationStore(database: database, ledger: Ledger(database: database))
        let id = UUID(uuidString: id)!
        let method = authenticating ? "pm_card_threeDSecure2Required" : "pm_card_visa"
        let charge = DonationStore.Charge(processor: "sandbox", paymentMethod: method, clientKey: "example", fingerprint: "example")
        let intent = try await SandboxProcessor().create(
            .init(amount: gross, currency: "eur", paymentMethod: method, metadata: [:]), idempotencyKey: "melon-donation-\(id.uuidString.lowercased())")
        try await database.transaction { connection in
            let made = try await open(donations, charge, connection)
            try await connection.query("UPDATE donations SET id = \(id) WHERE id = \(made)", logger: database.logger)
            try await donations.setIntent(id, intent.id, on: connection)
            if authenticating {
                try await donations.mark(id, .requiresAction, on: connection)
            } else {
                try await donations.succeed(id, fee: SandboxProcessor.fee(gross), on: connection)
            }
        }
    }

    /// The example account's campaign 5c6d7e8f-…0001, open for 90 days, with its ledger account (and
    /// the caller's bookmark of it, and a cover picture).
    static func givenCampaign(owner: UUID = exampleAccount, bookmarked: Bool = false, covered: Bool = false, in database: Database) async throws {
        let campaign = exampleCampaign, ledger = Ledger(database: database)
        try await database.transaction { connection in
            try await PeopleStore(database: database).record(owner, username: owner == exampleAccount ? "aoife" : "brian", on: connection)
            let karma = try await ledger.karmaAccount(of: owner, on: connection)
            try await connection.query(
                """
                INSERT INTO campaigns (id, owner_id, title, story, beneficiary, category, goal_minor, currency, ends_at, created_at, owner_karma)
                VALUES (\(campaign), \(owner), 'New roof for the scout hall', 'The roof leaks onto the kit.', '3rd Dublin Scouts', 'community',
                        500000, 'EUR', \(today.now().addingTimeInterval(90 * 86_400)), \(today.now()), \(karma))
                """,
                logger: database.logger)
            _ = try await ledger.id(of: .campaign(campaign), on: connection)
            if covered {
                let media = MediaLibrary(database: database)
                let kept = try await media.keep(try await media.process(Data(ImageSamples.webpLossless40x30), mediaType: "image/webp"), account: owner, on: connection)
                try await connection.query("UPDATE campaigns SET cover_media = \(kept.id) WHERE id = \(campaign)", logger: database.logger)
            }
            if bookmarked {
                try await connection.query(
                    "INSERT INTO bookmarks (account_id, campaign_id, created_at) VALUES (\(exampleAccount), \(campaign), \(today.now()))", logger: database.logger)
            }
        }
    }

    /// Brian's picture (message 3d4e5f6a-…0005) in the example conversation, kept as the service keeps it.
    static func givenPictureMessage(in database: Database) async throws {
        try await givenConversation(in: database)
        let key = try #require(environment["MARKETPLACE_CHAT_KEY"].flatMap { Data(base64Encoded: $0) })
        let messages = MessageStore(database: database, keys: KeyRing(current: SymmetricKey(data: key)))
        let conversation = UUID(uuidString: "2c3d4e5f-0000-4e5f-8a9b-000000000001")!, brian = UUID(uuidString: "7e2d1c0b-3a4f-4b5c-8d6e-9f0a1b2c3d4e")!
        let image = try await messages.media.process(Data(ImageSamples.png40x30), mediaType: "image/png")
        try await database.transaction { connection in
            let kept = try await messages.images(of: conversation, on: connection).keep(image, account: brian, on: connection)
            let facts = MarketplaceChat.MessageImage(mediaType: kept.full.mediaType, width: kept.full.width, height: kept.full.height, size: kept.full.size)
            _ = try await messages.append(.init(image: facts), to: conversation, from: 0, timerSeconds: 0, flagged: false, image: kept.id, on: connection)
            try await connection.query(
                "UPDATE messages SET id = '3d4e5f6a-0000-4e5f-8a9b-000000000005' WHERE conversation_id = \(conversation) AND seq = 3", logger: database.logger)
        }
    }

    /// Brian's conversation 2c3d4e5f-…0001 about the example trader's listing: his question (message
    /// 1) and her answer (message 3d4e5f6a-…0002), sealed as the service seals them.
    static func givenConversation(in database: Database) async throws {
        try await givenListing(in: database)
        try await givenBlock(blocking: false, in: database)
        let conversation = UUID(uuidString: "2c3d4e5f-0000-4e5f-8a9b-000000000001")!, brian = UUID(uuidString: "7e2d1c0b-3a4f-4b5c-8d6e-9f0a1b2c3d4e")!
        try await given(
            """
            INSERT INTO chatters (account_id, username, updated_at) VALUES (\(exampleAccount), 'aoife', \(today.now())), (\(brian), 'brian', \(today.now()))
            """,
            in: database)
        let key = try #require(environment["MARKETPLACE_CHAT_KEY"].flatMap { Data(base64Encoded: $0) })
        let messages = MessageStore(database: database, keys: KeyRing(current: SymmetricKey(data: key)))
        try await database.transaction { connection in
            try await connection.query(
                """
                INSERT INTO conversations (id, kind, listing_id, university_id, created_at)
                VALUES (\(conversation), 'listing', '1a2b3c4d-0000-4e5f-8a9b-000000000001', 'tcd', \(today.now()))
                """,
                logger: database.logger)
            try await connection.query(
                "INSERT INTO conversation_members (conversation_id, side, account_id) VALUES (\(conversation), 0, \(brian)), (\(conversation), 1, \(exampleAccount))",
                logger: database.logger)
            try await connection.query(
                "INSERT INTO conversation_keys (key, conversation_id) VALUES ('listing:1a2b3c4d-0000-4e5f-8a9b-000000000001:\(unescaped: brian.uuidString.lowercased())', \(conversation))",
                logger: database.logger)
            _ = try await messages.append(.init(text: "Is it still available?"), to: conversation, from: 0, timerSeconds: 0, flagged: false, on: connection)
            _ = try await messages.append(.init(text: "It is, until Friday."), to: conversation, from: 1, timerSeconds: 0, flagged: false, on: connection)
            try await connection.query(
                "UPDATE messages SET id = '3d4e5f6a-0000-4e5f-8a9b-000000000002' WHERE conversation_id = \(conversation) AND seq = 2", logger: database.logger)
        }
    }

    /// Brian's question in the example conversation as an item of the example trader's chat log.
    static func givenLiveMessage(in database: Database) async throws {
        try await givenConversation(in: database)
        let key = try #require(environment["MARKETPLACE_CHAT_KEY"].flatMap { Data(base64Encoded: $0) })
        let conversations = ConversationStore(database: database)
        let ring = KeyRing(current: SymmetricKey(data: key))
        let live = ChatLive.log(
            database: database, conversations: conversations, messages: MessageStore(database: database, keys: ring),
            locations: LiveLocationStore(database: database, keys: ring))
        try await database.transaction { connection in
            try await live.append(
                "message", ChatLive.MessageRef(c: UUID(uuidString: "2c3d4e5f-0000-4e5f-8a9b-000000000001")!, s: 1), for: [exampleAccount], on: connection)
        }
    }

    /// The example trader's listing sold to Brian from their conversation.
    static func givenSale(in database: Database) async throws {
        try await givenConversation(in: database)
        try await given(
            """
            UPDATE listings SET state = 'sold', sold_at = \(today.now()), buyer = '7e2d1c0b-3a4f-4b5c-8d6e-9f0a1b2c3d4e', feed_seq = NULL
            WHERE id = '1a2b3c4d-0000-4e5f-8a9b-000000000001'
            """,
            in: database)
    }

    /// Case 6a7b8c9d-…0001: Brian reported the example trader's listing as a scam, its snapshot sealed
    /// as the service seals it.
    static func givenCase(in database: Database) async throws {
        try await givenListing(in: database)
        try await givenBlock(blocking: false, in: database)
        let key = try #require(environment["MARKETPLACE_CHAT_KEY"].flatMap { Data(base64Encoded: $0) })
        let store = ModerationStore(database: database, keys: KeyRing(current: SymmetricKey(data: key)))
        let reported = ModerationStore.Reported(
            kind: .listing, id: UUID(uuidString: "1a2b3c4d-0000-4e5f-8a9b-000000000001")!, account: exampleAccount, university: "tcd",
            snapshot: .init(title: "Calculus textbook", description: "Stewart, 8th edition", price: Money(minorUnits: 2500, currency: .eur), username: "aoife"))
        _ = try await database.transaction { connection in
            try await store.report(
                reported, by: UUID(uuidString: "7e2d1c0b-3a4f-4b5c-8d6e-9f0a1b2c3d4e")!, reason: .scam, details: "Asks for payment by gift card.",
                newCase: UUID(uuidString: "6a7b8c9d-0000-4e5f-8a9b-000000000001")!, on: connection)
        }
    }

    /// Decision 5a6b7c8d-…0001: moderator Maeve suspended the example trader until lifted (after case
    /// 6a7b8c9d-…0001); `appealed`, the trader appealed it.
    static func givenSuspension(appealed: Bool = false, in database: Database) async throws {
        try await givenListing(in: database)
        let decision = UUID(uuidString: "5a6b7c8d-0000-4e5f-8a9b-000000000001")!, now = today.now()
        try await given(
            """
            INSERT INTO moderation_cases (id, subject_kind, subject_id, account_id, university_id, reporters, open, opened_at, closed_at)
            VALUES ('6a7b8c9d-0000-4e5f-8a9b-000000000001', 'account', \(exampleAccount), \(exampleAccount), 'tcd', 1, false, \(now), \(now))
            """,
            in: database)
        try await given(
            """
            INSERT INTO moderation_decisions (id, action, case_id, account_id, account_username, moderator_id, moderator_username, note, decided_at)
            VALUES (\(decision), 'suspend', '6a7b8c9d-0000-4e5f-8a9b-000000000001', \(exampleAccount), 'aoife', '9f8e7d6c-0000-4b5a-8c9d-000000000001',
                    'maeve', 'Third scam listing this month.', \(now))
            """,
            in: database)
        try await given("INSERT INTO suspensions (account_id, decision_id) VALUES (\(exampleAccount), \(decision))", in: database)
        if appealed {
            try await given(
                "INSERT INTO appeals (decision_id, account_id, text, created_at) VALUES (\(decision), \(exampleAccount), 'The textbook is mine.', \(now))",
                in: database)
        }
    }

    /// Brian's open offer 4f5a6b7c-…0001 of 20.00 on the example trader's listing.
    static func givenOffer(in database: Database) async throws {
        try await givenListing(in: database)
        try await givenBlock(blocking: false, in: database)
        try await given(
            """
            INSERT INTO offers (id, listing_id, buyer, amount_minor, currency, state, created_at, expires_at)
            VALUES ('4f5a6b7c-0000-4e5f-8a9b-000000000001', '1a2b3c4d-0000-4e5f-8a9b-000000000001', '7e2d1c0b-3a4f-4b5c-8d6e-9f0a1b2c3d4e', 2000, 'EUR',
                    'open', \(today.now()), \(today.now().addingTimeInterval(48 * 3_600)))
            """,
            in: database)
    }

    /// The example trader's saved search 5e6f7a8b-…0001: "calculus" up to 30.00.
    static func givenSavedSearch(in database: Database) async throws {
        try await given(
            """
            INSERT INTO saved_searches (id, account_id, university_id, q, max_price, created_at)
            VALUES ('5e6f7a8b-0000-4e5f-8a9b-000000000001', \(exampleAccount), 'tcd', 'calculus', 3000, \(today.now()))
            """,
            in: database)
    }

    /// The example trader's listing 1a2b3c4d-…0001, "Calculus textbook" at 25.00 EUR, in `state`
    /// (active for 30 days from the examples' today unless said), showing the example photo.
    static func givenListing(state: String = "active", in database: Database) async throws {
        try await givenMarketPhoto(in: database)
        let listing = UUID(uuidString: "1a2b3c4d-0000-4e5f-8a9b-000000000001")!, now = today.now(), active = state == "active"
        try await given(
            """
            INSERT INTO listings (id, seller, university_id, campus_id, category_id, title, description, price_minor, currency, condition, state,
                                  feed_seq, created_at, updated_at, published_at, expires_at)
            VALUES (\(listing), \(exampleAccount), 'tcd', 'college-green', 'textbooks', 'Calculus textbook', 'Stewart, 8th edition', 2500, 'EUR',
                    'good', \(state), \(active ? 1 : nil), \(now), \(now), \(active ? now : nil), \(active ? now.addingTimeInterval(30 * 86_400) : nil))
            """,
            in: database)
        try await given(
            "UPDATE photos SET listing_id = \(listing), position = 0 WHERE media_id = '0d1e2f3a-0000-4e5f-8a9b-000000000001'", in: database)
        try await given("INSERT INTO title_words (university_id, word) VALUES ('tcd', 'calculus'), ('tcd', 'textbook')", in: database)
    }

    /// A post of the example household's owner (id 0b1c2d3e-…0001) with a comment of the other member.
    static func givenPost(in database: Database) async throws {
        try await givenHousehold(in: database)
        let post = UUID(uuidString: "0b1c2d3e-0000-4e5f-8a9b-000000000001")!, now = today.now()
        try await given(
            """
            INSERT INTO posts (id, household_id, author, title, description, created_at, updated_at)
            VALUES (\(post), \(exampleHousehold), 'a1b2c3d4-0000-4e5f-8a9b-000000000001', 'Party on Saturday', 'Bring a chair', \(now), \(now))
            """,
            in: database)
        try await given(
            """
            INSERT INTO post_comments (id, post_id, member_id, at, text)
            VALUES (gen_random_uuid(), \(post), 'a1b2c3d4-0000-4e5f-8a9b-000000000002', \(now), 'I will bring crisps')
            """,
            in: database)
    }

    static func givenDevice(owner: UUID = exampleAccount, in database: Database) async throws {
        try await given(
            """
            INSERT INTO devices (id, account_id, session_id, platform, app, token, environment, locale, time_zone, app_version)
            VALUES ('3b9e1c4a-5d6f-4a7b-8c9d-0e1f2a3b4c5d', \(owner), \(exampleSession), 'ios', 'household',
                    '9f3c2a81d4e5b6a7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5', 'production', 'en-IE', 'Europe/Dublin', '2.1.0')
            """,
            in: database)
    }

    /// An unread bill notification in the example account's household inbox.
    static func givenNotification(in database: Database) async throws {
        let push = UUID()
        try await given(
            """
            INSERT INTO pushes (id, source, content, expires_at)
            VALUES (\(push), 'urn:melon:household', '{"app": "household", "eventType": "household.bill.created", "category": "bills"}', now() + interval '1 day')
            """,
            in: database)
        try await given(
            """
            INSERT INTO notifications (id, push_id, account_id, app, event_type, category, alert, data)
            VALUES ('5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f', \(push), \(exampleAccount), 'household', 'household.bill.created', 'bills',
                    '{"title": "New bill", "body": "Electricity: €84.20, your share €21.05"}', '{"billId": "b-2291"}')
            """,
            in: database)
    }

    /// Runs one statement of provider state.
    static func given(_ statement: PostgresQuery, in database: Database) async throws {
        try await database.transaction { try await $0.query(statement, logger: database.logger) }
    }

    static let exampleAccount = UUID(uuidString: "6f1c2b7e-0d4a-4c3e-9b8a-1e2f3a4b5c6d")!
    static let exampleSession = UUID(uuidString: "0c5b7d1e-2f3a-4b5c-8d9e-0a1b2c3d4e5f")!

    /// An account (the examples' id unless one exists already).
    @discardableResult
    static func givenAccount(email: String, username: String, password: String = "unused password", in database: Database) async throws -> UUID {
        let hash = try await PasswordHasher().hash(password)
        try await database.transaction { connection in
            try await connection.query(
                """
                INSERT INTO accounts (id, email, username, display_name, first_name, last_name, password_hash)
                VALUES (\(exampleAccount), \(email), \(username), 'Example', 'Ana', 'Byrne', \(hash))
                """,
                logger: database.logger)
        }
        return exampleAccount
    }

    /// A registration attempt waiting for its code.
    static func givenRegistration(_ id: UUID, email: String, username: String, in database: Database) async throws {
        let hash = try await PasswordHasher().hash("a long walk by the Liffey")
        try await given(
            """
            INSERT INTO registrations (id, email, username, display_name, password_hash, expires_at)
            VALUES (\(id), \(email), \(username), 'Ana Byrne', \(hash), now() + interval '1 hour')
            """,
            in: database)
    }

    /// A live code (its hash, as the service stores it): a verification code of an attempt, or a
    /// reset code of an account.
    static func givenCode(_ code: String, account: UUID? = nil, registration: UUID? = nil, in database: Database) async throws {
        let id = UUID(), purpose = account == nil ? "verify-email" : "reset-password"
        let hash = Data(SHA256.hash(data: Data("\(id.uuidString.lowercased()):\(code)".utf8)))
        try await given(
            """
            INSERT INTO email_codes (id, account_id, registration_id, purpose, code_hash, expires_at)
            VALUES (\(id), \(account), \(registration), \(purpose), \(hash), now() + interval '10 minutes')
            """,
            in: database)
    }

    /// The example account's session, with `refreshToken` live in it.
    static func givenSession(refreshToken: String, password: String = "unused password", in database: Database) async throws {
        try await givenAccount(email: "ana.byrne@tcd.ie", username: "ana_b", password: password, in: database)
        try await database.transaction { connection in
            try await connection.query("INSERT INTO sessions (id, account_id, app) VALUES (\(exampleSession), \(exampleAccount), 'melon')", logger: database.logger)
            try await connection.query(
                """
                INSERT INTO refresh_tokens (token_hash, session_id, expires_at)
                VALUES (\(Data(SHA256.hash(data: Data(refreshToken.utf8)))), \(exampleSession), now() + interval '1 day')
                """,
                logger: database.logger)
        }
    }

    /// A mail with the request's `data.id`, in `status`.
    static func givenMail(_ request: JSONValue, status: String, in database: Database) async throws {
        guard case .string(let text)? = request["data"]?["id"], let id = UUID(uuidString: text) else { throw ContractStateError() }
        let mail = QueuedMail(
            id: id, sender: "no-reply@melon.example", recipients: ["ana@student.example.edu"], message: Array("Subject: x\r\n\r\nx\r\n".utf8),
            template: nil, requestedBy: "urn:melon:contract-test", requestID: "state")
        try await database.transaction { try await MailPostgresRepository(database: database).insert(mail, on: $0) }
        let attempts = status == "queued" ? 0 : 1
        let reply: String? = status == "failed" ? "550 5.1.1 mailbox unavailable" : nil
        try await database.transaction { connection in
            try await connection.query(
                """
                UPDATE mails SET status = \(status), attempts = \(attempts), reply = \(reply),
                    sent_at = CASE WHEN \(status) = 'sent' THEN now() END, failed_at = CASE WHEN \(status) = 'failed' THEN now() END
                WHERE id = \(id)
                """,
                logger: database.logger)
        }
    }

    struct ContractStateError: Error {}

    /// Each operation type's consumer check, bound to its Swift types.
    static let consumers: [String: @Sendable (ContractExample) throws -> [String]] = Dictionary(
        uniqueKeysWithValues: Self.operations.map { operation in (operation.type, consumerCheck(operation)) })

    private static func consumerCheck<Op: BusOperation>(_ operation: Op.Type) -> @Sendable (ContractExample) throws -> [String] {
        { try ContractCheck.consumer(Op.self, $0) }
    }

    /// The broker's rights per member name agree with the services: the publishers are the services
    /// whose definitions publish, the gateway may call what it routes and what it needs to check
    /// tokens but no internal operation, and only auth may erase.
    @Test func theBusPolicyAgreesWithTheServices() {
        #expect(BusPolicy.publishers == Set(MelonServices.all.filter(\.publishesEvents).map(\.name)))
        let gateway = BusPolicy.rights(of: BusPolicy.gateway)
        #expect(gateway.serves.isEmpty && gateway.actsForUsers)
        for operation in ServiceCatalog.operations where !operation.http.isEmpty { #expect(gateway.calls(operation.type), "\(operation.type)") }
        #expect(gateway.calls(Auth.Keys.Jwks.type) && gateway.calls(Auth.Sessions.Revoked.type))
        #expect(!gateway.calls(PdfEmail.Mail.Send.type) && !gateway.calls("notifications.account.erase.v1"))
        let refunds = BusPolicy.rights(of: "refund-calculator")
        #expect(refunds.serves == ["refund-calculator"] && !refunds.actsForUsers && !refunds.publishes)
        #expect(refunds.calls(PdfEmail.Mail.Send.type))
        for erase in ServiceCatalog.erasures {
            #expect(!refunds.calls(erase.type) && BusPolicy.rights(of: "auth").calls(erase.type), "\(erase.type)")
        }
        // Each service may call exactly what its definition's bus client calls (its contract's
        // `calls`, and auth's erasures): nothing else of another service, such as another's mail
        // or pushes; a test member calls fixtures only.
        for definition in MelonServices.all {
            let rights = BusPolicy.rights(of: definition.name)
            let allowed = Set(ServiceCatalog.operations.map { $0.type }.filter(rights.calls))
            #expect(allowed == definition.calls, "\(definition.name): the broker allows \(allowed.sorted()), its client calls \(definition.calls.sorted())")
        }
        #expect(!BusPolicy.rights(of: "notifications").calls(PdfEmail.Mail.Send.type), "notifications sends no mail")
        #expect(!BusPolicy.rights(of: "pdf-email").calls("notifications.push.send.v1"), "pdf-email sends no pushes")
        let tester = BusPolicy.rights(of: "tester")
        #expect(tester.calls("echo.message.repeat.v1") && !tester.calls(PdfEmail.Mail.Send.type) && !tester.calls(Auth.Me.Get.type))
    }

    @Test func everyOperationHasAnExampleAndEveryExampleAnOperation() {
        let exampleTypes = Set(Self.examples.map(\.type))
        let operationTypes = Set(Self.operations.map { $0.type })
        #expect(operationTypes.subtracting(exampleTypes).isEmpty, "operations without examples")
        // An example whose type left the catalog means an operation was removed or renamed without
        // a new version: delete its examples deliberately, with the operation.
        #expect(exampleTypes.subtracting(operationTypes).isEmpty, "examples of operations that no longer exist")
    }

    @Test(arguments: examples)
    func providerAnswersLikeTheExample(_ example: ContractExample) async throws {
        let service = try #require(Self.operations.first { $0.type == example.type }).service
        try await Self.withProvider(service) { registry, database in
            if let given = Self.providerStates[example.description] {
                try await given(try #require(database), try JSONValue.parse(example.request))
            }
            let problems = try await ContractCheck.provider(registry, example)
            #expect(problems == [], "\(problems)")
        }
    }

    /// A successful example's request and reply are what the operation's schema (the gateway's check
    /// and the API document) says.
    @Test(arguments: examples)
    func successfulExamplesMatchTheSchema(_ example: ContractExample) throws {
        let operation = try #require(Self.operations.first { $0.type == example.type })
        let request = try JSONValue.parse(example.request), reply = try JSONValue.parse(example.reply)
        guard reply["outcome"] == "ok" else { return }
        #expect(operation.requestSchema.problems(request["data"] ?? .null, at: "data") == [])
        #expect(operation.responseSchema.problems(reply["data"] ?? .null, at: "data") == [])
    }

    @Test(arguments: examples)
    func consumerTypesMatchTheExample(_ example: ContractExample) throws {
        let check = try #require(Self.consumers[example.type])
        #expect(try check(example) == [])
    }

    /// An operation that keeps its reply answers a repeat of a successful example with the same
    /// reply and acts once: one record, in the transaction of the change.
    @Test(arguments: examples.filter { example in
        guard case .stored? = operations.first(where: { $0.type == example.type })?.idempotency else { return false }
        return (try? JSONValue.parse(example.reply))?["outcome"] == "ok"
    })
    func aStoredReplyAnswersTheRepeat(_ example: ContractExample) async throws {
        let service = try #require(Self.operations.first { $0.type == example.type }).service
        try await Self.withProvider(service) { registry, database in
            let database = try #require(database)
            if let given = Self.providerStates[example.description] { try await given(database, try JSONValue.parse(example.request)) }
            let first = try JSONValue.parse(await registry.handle(example.request, logger: .init(label: "contract"), bus: nil))
            let again = try JSONValue.parse(await registry.handle(example.request, logger: .init(label: "contract"), bus: nil))
            #expect(first["outcome"] == "ok" && again["data"] == first["data"], "\(again)")
            let records = try await database.transaction { connection in
                try await connection.query("SELECT count(*) FROM idempotency_records", logger: database.logger).decode(Int.self).reduce(0, +)
            }
            #expect(records == 1)
        }
    }

    /// Secrets stay out of the record: a repeat with another password is the same request, and
    /// neither the fingerprint nor the reply holds the password.
    @Test func aStoredRecordHoldsNoSecret() async throws {
        try await Self.withProvider(Auth.name) { registry, database in
            let database = try #require(database)
            func register(_ password: String) async throws -> JSONValue {
                let request = RequestEnvelope(
                    attributes: RequestAttributes(id: RandomID.uuid(), source: "urn:melon:test", type: Auth.Account.Register.type, idempotencyKey: "one-key"),
                    data: Auth.Account.Register.Request(email: "ana@tcd.ie", password: password, displayName: "Ana", username: "ana_b"))
                return try JSONValue.parse(await registry.handle(try EnvelopeCodec().encode(request), logger: .init(label: "contract"), bus: nil))
            }
            let first = try await register("a long walk by the Liffey")
            let second = try await register("another long walk entirely")
            #expect(first["outcome"] == "ok" && second["data"] == first["data"], "\(second)")
            let stored = try await database.transaction { connection in
                try await connection.query("SELECT fingerprint || coalesce(reply, '') FROM idempotency_records", logger: database.logger)
                    .decode(Data.self).reduce(into: Data()) { $0.append($1) }
            }
            #expect(!stored.isEmpty && stored.range(of: Data("Liffey".utf8)) == nil)
            let passwordHash = Data(SHA256.hash(data: Data("a long walk by the Liffey".utf8)))
            #expect(stored.range(of: passwordHash) == nil)
        }
    }

    /// An account's stored replies go with the account: the erase operation forgets them.
    @Test func erasingAnAccountForgetsItsStoredReplies() async throws {
        let save = try #require(Self.examples.first { $0.description == "refund-calculator.scenario.save.v1/saved" })
        let erase = try #require(Self.examples.first { $0.description == "refund-calculator.account.erase.v1/erased" })
        try await Self.withProvider(RefundCalculator.name) { registry, database in
            let database = try #require(database)
            func records() async throws -> Int {
                try await database.transaction { connection in
                    try await connection.query("SELECT count(*) FROM idempotency_records", logger: database.logger).decode(Int.self).reduce(0, +)
                }
            }
            _ = await registry.handle(save.request, logger: .init(label: "contract"), bus: nil)
            #expect(try await records() == 1)
            let erased = try JSONValue.parse(await registry.handle(erase.request, logger: .init(label: "contract"), bus: nil))
            #expect(erased["outcome"] == "ok", "\(erased)")
            #expect(try await records() == 0)
        }
    }

    @Test func melonRunsEveryServiceTheCatalogLists() {
        let catalog = ServiceCatalog.services.map(ObjectIdentifier.init)
        #expect(
            MelonServices.all.sorted { $0.name < $1.name }.map { ObjectIdentifier($0.contract) } == catalog,
            "Services/Catalog/ServiceCatalog+Services.swift is made from MelonServices.all: MELON_WRITE_DOCS=1 swift test --filter DeployFilesTests rewrites it")
    }

    @Test func theCheckerNoticesADifferentShape() async throws {
        let example = try #require(Self.examples.first { $0.type == Echo.Message.Repeat.type && $0.name == "ok" })
        let reply = String(decoding: example.reply, as: UTF8.self).replacingOccurrences(of: #""worker": "host:4242""#, with: #""worker": 4242"#)
        let altered = ContractExample(type: example.type, name: "altered", request: example.request, reply: Array(reply.utf8))
        #expect(try await ContractCheck.provider(EchoService.registry(), altered) == ["data.worker is a string, the example has a number"])
        #expect(try ContractCheck.consumer(Echo.Message.Repeat.self, altered).isEmpty == false)
    }
}
