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

    public static let paymentsSettings: [Setting] = [.paymentsStripeSecretKey, .paymentsStripeURL, .paymentsStripeTimeout, .paymentsStripeWebhookSecret]
}

extension ProcessSettings {
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
