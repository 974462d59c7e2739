import Bus
import Contracts
import Crypto
import Envelope
import Foundation
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// `payments.webhooks.stripe.v1`: Stripe's events, checked against the endpoint's secret over the
/// exact bytes received. A payment_intent event takes its donation on from the intent as Stripe
/// says it is now (read back, so events that come late or out of order change nothing settled); a
/// refund event reads the charge's refunds back and settles each once; a dispute gives the disputed
/// amount back once, with its karma. An event seen before is answered
/// with no effect; one processed fails with a non-2xx answer only when it must be sent again.
struct WebhookHandlers: Sendable {
    let database: Database
    let donations: DonationHandlers
    let refunds: RefundHandlers
    /// The endpoint's signing secret (`whsec_…`); nil: webhooks are not configured.
    let secret: String?

    static let badSignature = OperationError.invalid(
        field: "Stripe-Signature", "does not sign this payload with the endpoint's secret within 5 minutes")

    @Sendable
    func stripe(_ request: Payments.Webhooks.Stripe.Request, _ context: RequestContext) async throws -> Payments.Webhooks.Stripe.Response {
        guard let secret else { throw OperationError(.forbidden, "Stripe webhooks are not configured here (PAYMENTS_STRIPE_WEBHOOK_SECRET)") }
        guard let header = request.signature, StripeSignature.verify(request.payload, header: header, secret: secret, now: database.now()) else {
            context.logger.warning("a Stripe webhook with a wrong or old signature was refused")
            throw Self.badSignature
        }
        guard let event = (try? JSONSerialization.jsonObject(with: request.payload)) as? [String: Any], let id = event["id"] as? String,
              let type = event["type"] as? String, let object = (event["data"] as? [String: Any])?["object"] as? [String: Any]
        else { throw OperationError.invalid(field: "data.payload", "is not a Stripe event (id, type, data.object)") }
        let seen = try await database.transaction { connection in
            try await connection.query("SELECT 1 FROM webhook_events WHERE id = \(id)", logger: database.logger).decode(Int.self).first { _ in true } != nil
        }
        if seen { return .init(received: true, duplicate: true) }
        switch type {
        case _ where type.hasPrefix("payment_intent."):
            if let intent = object["id"] as? String, let record = try await donation(paidBy: intent) {
                _ = try await donations.drive(record, logger: context.logger)
            }
        case "charge.refunded", "charge.refund.updated", "refund.created", "refund.updated", "refund.failed":
            // Read back from the processor: every refund of the charge, ours or made at its dashboard, settled once each.
            if let intent = object["payment_intent"] as? String, let record = try await donation(paidBy: intent) {
                do { try await refunds.sync(donation: record.id, intent: intent) } catch let error as ProcessorError {
                    context.logger.warning("a refund event could not be read back; Stripe sends it again", metadata: ["why": "\(error)"])
                    throw OperationError(.unavailable, "the processor did not answer about this charge's refunds; send the event again")
                }
            }
        case "charge.dispute.created":
            if let intent = object["payment_intent"] as? String, let dispute = object["id"] as? String,
               let amount = (object["amount"] as? NSNumber)?.int64Value, let record = try await donation(paidBy: intent) {
                let posted = try await database.transaction { connection in
                    try await donations.donations.giveBack(record.id, amount: amount, as: .dispute, transfer: Ledger.transfer(processor: "dispute:\(dispute)"), on: connection)
                }
                context.logger.notice("dispute", metadata: ["donation": "\(record.id)", "posted": "\(posted.map(String.init(describing:)) ?? "nothing left")"])
            }
        default:
            break
        }
        try await database.transaction { connection in
            try await connection.query(
                "INSERT INTO webhook_events (id, type, received_at) VALUES (\(id), \(type), \(database.now())) ON CONFLICT DO NOTHING", logger: database.logger)
        }
        return .init(received: true, duplicate: false)
    }

    private func donation(paidBy intent: String) async throws -> DonationStore.Record? {
        try await database.transaction { connection in
            try await donations.donations.record(paidBy: intent, on: connection)
        }
    }

    /// Deletes events older than 30 days (Stripe retries for three); how many.
    func prune(on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            "WITH gone AS (DELETE FROM webhook_events WHERE received_at < \(database.ago(.seconds(30 * 86_400))) RETURNING 1) SELECT count(*)::int FROM gone",
            logger: database.logger)
        return try await rows.decode(Int.self).first { _ in true } ?? 0
    }
}
