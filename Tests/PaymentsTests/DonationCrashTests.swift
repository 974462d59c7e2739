import Bus
import Contracts
import Envelope
import Foundation
import PaymentsContract
@testable import PaymentsService
import PostgresSupport
import ServiceSupport
import Testing
import TestSupport

extension PaymentsStackTests {
/// The payments process dies between Stripe's charge and our commit (the test-only setting
/// `PAYMENTS_TEST_STOP_AFTER_CHARGE` makes it exit at that point); restarted, the donor's repeat
/// finds the charge from the stored PaymentIntent: charged once, posted once, nothing lost.
@Suite(.timeLimit(.minutes(3))) struct DonationCrashTests {
    static func options(_ account: UUID, _ username: String, key: String, timeout: Duration = .seconds(20)) -> CallOptions {
        var options = CallOptions(timeout: timeout, idempotencyKey: key)
        options.authType = "app_user"
        options.authID = account.uuidString.lowercased()
        options.authClaims = #"{"app":"fundraising","roles":["user"],"sid":"\#(UUID().uuidString.lowercased())","username":"\#(username)"}"#
        return options
    }

    @Test func aProcessThatDiesBetweenTheChargeAndItsCommitChargesOnceAndLosesNothingWhenRestarted() async throws {
        let stripe = try await StripeTestServer()
        let broker = try BusHarness.broker(heartbeat: .init(interval: .milliseconds(250), liveness: 3))
        let client = try BusHarness.client(broker.endpoint)
        let databaseURL = try await TestDatabase.freshDatabase()
        let environment = stripe.environment.merging(["BROKER_ENDPOINT": broker.endpoint, "HEARTBEAT_INTERVAL": "250", "DATABASE_URL": databaseURL]) { $1 }
        let dying = try ChildProcess(
            product: "payments", environment: environment.merging(["PAYMENTS_TEST_STOP_AFTER_CHARGE": "yes", "HEALTH_PORT": "\(Ports.free())"]) { $1 },
            name: "payments-dying")
        try await BusHarness.with([broker, client]) {
            #expect(await BusHarness.waitForService("payments", client: client, timeout: .seconds(30)), "\(dying.output)")
            let (fiona, gerry) = (UUID(), UUID())
            let campaign = try await client.call(Payments.Campaigns.Create.self, .init(
                title: "New roof for the scout hall", story: "The roof leaks onto the kit.", goal: Money(minorUnits: 500_000, currency: .eur),
                endsAt: Date().addingTimeInterval(30 * 86_400), category: .community, beneficiary: "3rd Dublin Scouts"),
                options: Self.options(fiona, "fiona", key: UUID().uuidString))
            let gift = Payments.Donations.Create.Request(campaignId: campaign.id, amount: Money(minorUnits: 2_500, currency: .eur), paymentMethod: "pm_card_visa")
            let key = UUID().uuidString
            let lost: Payments.Donation? = try? await client.call(Payments.Donations.Create.self, gift, options: Self.options(gerry, "gerry", key: key, timeout: .seconds(3)))
            #expect(lost == nil, "the process answered instead of stopping")
            #expect(await dying.wait(timeout: .seconds(10)) == 86, "\(dying.output)")
            #expect(try await stripe.charges().count == 1)
            #expect(try await TestDatabase.integer(
                "SELECT count(*)::int FROM payments.donations WHERE status = 'processing' AND intent_id IS NOT NULL", on: databaseURL) == 1)
            #expect(try await TestDatabase.integer("SELECT count(*)::int FROM payments.ledger_transfers", on: databaseURL) == 0)

            let restarted = try ChildProcess(product: "payments", environment: environment.merging(["HEALTH_PORT": "\(Ports.free())"]) { $1 }, name: "payments")
            // The donor's app repeats with the same key, then asks where it stands (the sweep would take it on too): once the dead
            // process's hold lapses, the stored intent is read back.
            let repeated = try await client.call(Payments.Donations.Create.self, gift, options: Self.options(gerry, "gerry", key: key, timeout: .seconds(30)))
            let reference = Payments.DonationReference(donationId: repeated.id)
            #expect(await eventually(timeout: .seconds(30)) {
                try await client.call(Payments.Donations.Get.self, reference, options: Self.options(gerry, "gerry", key: UUID().uuidString)).status == .succeeded
            }, "\(restarted.output)")
            #expect(try await stripe.charges().count == 1)
            #expect(try await TestDatabase.integer("SELECT count(*)::int FROM payments.ledger_transfers WHERE kind = 'donation'", on: databaseURL) == 1)
        }
    }

    @Test func theCrashSettingIsRefusedUnlessTheProcessorIsTheSandboxOrOnTheLoopback() throws {
        let settings = ProcessSettings(
            process: "payments", settings: Setting.paymentsSettings, arguments: [], environment: ["PAYMENTS_TEST_STOP_AFTER_CHARGE": "yes"])
        #expect(throws: ProcessSettings.InvalidValue.self) {
            try settings.stopsAfterCharge(StripeClient(baseURL: "https://api.stripe.com", secretKey: "sk_live_x", timeout: .seconds(1)))
        }
        #expect(try settings.stopsAfterCharge(StripeClient(baseURL: "http://127.0.0.1:9", secretKey: "sk_test_x", timeout: .seconds(1))))
        #expect(try settings.stopsAfterCharge(SandboxProcessor()))
        let unset = ProcessSettings(process: "payments", settings: Setting.paymentsSettings, arguments: [], environment: [:])
        #expect(try unset.stopsAfterCharge(SandboxProcessor()) == false)
    }
}
}
