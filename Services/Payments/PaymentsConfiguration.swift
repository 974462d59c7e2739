import Foundation
import PostgresSupport
import ServiceSupport

extension Setting {
    public static let paymentsStripeSecretKey = Setting(
        "payments.stripe.secret.key", default: nil,
        help: "Stripe's secret API key (sk_live_… or sk_test_…): donations are charged through Stripe. Unset: the sandbox, which charges nobody.",
        isSecret: true, provision: .perDeployment)
    public static let paymentsStripeURL = Setting(
        "payments.stripe.url", default: "https://api.stripe.com", help: "Stripe's API: https, or http on this host's loopback (a test server).")
    public static let paymentsStripeTimeout = Setting(
        "payments.stripe.timeout", default: "10000", help: "Milliseconds one request to Stripe may take before the donation waits for the next try.",
        kind: .milliseconds(100...120_000))

    public static let paymentsStripeWebhookSecret = Setting(
        "payments.stripe.webhook.secret", default: nil,
        help: "The signing secret (whsec_…) of the Stripe endpoint that sends events to POST /v1/webhooks/stripe. Unset: that route refuses every event.",
        isSecret: true, provision: .perDeployment)

    public static let paymentsTestStopAfterCharge = Setting(
        "payments.test.stop.after.charge", default: nil,
        help: """
            For the crash test only: yes makes the process exit the moment the processor charged a donation, before the charge is \
            recorded. Refused unless donations go to the sandbox or to a Stripe test server on this host's loopback.
            """)

    public static let paymentsProjectOrganisation = Setting(
        "payments.project.organisation", default: nil,
        help: """
            The registered organisation that receives gifts to the Melon project, with its number ("Melon Foundation CLG, CHY 12345"): \
            receipts name it. Unset: receipts say the gift is not tax-deductible.
            """)

    public static let paymentsSettings: [Setting] = [
        .paymentsProjectOrganisation, .paymentsStripeSecretKey, .paymentsStripeURL, .paymentsStripeTimeout, .paymentsStripeWebhookSecret, .paymentsTestStopAfterCharge,
    ]
}

extension ProcessSettings {
    /// Whether the process is to exit between a charge and its commit (the crash test's setting),
    /// which only a sandbox or a loopback processor may ask for.
    func stopsAfterCharge(_ processor: any PaymentProcessor) throws -> Bool {
        guard let value = string(.paymentsTestStopAfterCharge), !value.isEmpty else { return false }
        guard value == "yes" else { throw InvalidValue(setting: .paymentsTestStopAfterCharge, value: value, expected: "yes, or unset") }
        let local = (processor as? StripeClient).map { URLComponents(string: $0.baseURL)?.scheme == "http" } ?? true
        guard local else {
            throw InvalidValue(setting: .paymentsTestStopAfterCharge, value: value, expected: "unset: it is for a test processor on the loopback only")
        }
        return true
    }

    /// The payment processor: Stripe when its key is set, else the sandbox (the local default).
    func paymentProcessor() throws -> any PaymentProcessor {
        guard let key = string(.paymentsStripeSecretKey), !key.isEmpty else { return SandboxProcessor() }
        let url = try requiredString(.paymentsStripeURL)
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty,
              components.scheme == "https" || (components.scheme == "http" && ["127.0.0.1", "localhost", "::1"].contains(host))
        else { throw InvalidValue(setting: .paymentsStripeURL, value: url, expected: "an https:// URL (http:// only on the loopback)") }
        return StripeClient(baseURL: url, secretKey: key, timeout: try milliseconds(.paymentsStripeTimeout))
    }
}
