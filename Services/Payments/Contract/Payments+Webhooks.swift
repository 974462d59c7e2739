import Contracts
import Envelope
import Foundation

extension Payments {
    public enum Webhooks {
        /// `payments.webhooks.stripe.v1`
        public enum Stripe: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.webhooks.stripe.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/webhooks/stripe", name: "stripeWebhook", access: .anyone, errors: [.forbidden],
                summary: """
                    Stripe's events about our payments (payment_intent.*, charge.dispute.created), signed with the endpoint's secret \
                    (Stripe-Signature, over the exact bytes, within 5 minutes); an event seen before is answered with no effect
                    """,
                upload: .init(
                    content: "payload", mediaType: "mediaType", mediaTypes: ["application/json"], maxBytes: 256 * 1024,
                    headers: ["Stripe-Signature": "signature"]))]
            public static let idempotency: Idempotency? = .repeatable(because: "an event processed before is answered with no effect")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                /// The body, byte for byte as Stripe sent it.
                public var payload: Data
                public var mediaType: String
                /// The `Stripe-Signature` header.
                public var signature: String?

                public init(payload: Data, mediaType: String, signature: String?) {
                    self.payload = payload
                    self.mediaType = mediaType
                    self.signature = signature
                }

                public static let fieldRules: [String: FieldRule] = [
                    "payload": FieldRule.bytes(1...(256 * 1024)).described("the event, as Stripe sent it"),
                    "mediaType": .oneOf(["application/json"]),
                    "signature": FieldRule.text(1...4_096).described("t=<unix time>,v1=<HMAC-SHA256 in hex>[,v1=…]"),
                ]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var received: Bool
                /// The event was processed before: nothing was done again.
                public var duplicate: Bool

                public init(received: Bool, duplicate: Bool) {
                    self.received = received
                    self.duplicate = duplicate
                }
            }
        }
    }
}
