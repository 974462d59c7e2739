import Foundation
import PaymentsContract
import PdfEmailContract
import PostgresNIO
import PostgresSupport

/// Receipts by email for the donations that asked for one (the project's, `receiptEmail`): sent
/// through pdf-email's outbox in the transaction that learns the donation's fee (when it succeeds,
/// or later by reconciliation), so the receipt states the gross, the processor's fee and the net.
/// The address is deleted as the receipt is queued. It claims no tax deduction unless the
/// organisation that receives the gifts is configured (`PAYMENTS_PROJECT_ORGANISATION`).
struct DonationReceipts: Sendable {
    let database: Database
    /// The registered organisation that receives gifts to the project (its name and number).
    let organisation: String?

    /// Queues the receipt of donation `id` when it asked for one, succeeded and its fee is known; once.
    func send(for id: UUID, on connection: PostgresConnection) async throws {
        let rows = try await connection.query(
            """
            UPDATE donations d SET receipt_email = NULL FROM donations old
            WHERE d.id = \(id) AND old.id = d.id AND d.receipt_email IS NOT NULL AND d.succeeded_at IS NOT NULL AND d.fee_known
            RETURNING old.receipt_email, d.gross_minor, d.fee_minor, d.succeeded_at, d.donor_id,
                      (SELECT title FROM campaigns c WHERE c.id = d.campaign_id)
            """,
            logger: database.logger)
        for try await (email, gross, fee, at, donor, title) in rows.decode((String, Int64, Int64, Date, UUID?, String?).self) {
            let mail = PdfEmail.Mail.Send.Request(
                to: [email], subject: "Your receipt: \(DonationPushes.euros(gross)) to \(title ?? "Melon")",
                text: Self.text(donation: id, campaign: title ?? "Melon", gross: gross, fee: fee, at: at, organisation: organisation),
                account: donor.map(CampaignStore.text))
            // Tagged with the donor, so an erasure drops it while it waits.
            try await database.enqueue(PdfEmail.Mail.Send.self, mail, on: connection, idempotencyKey: "receipt-\(CampaignStore.text(id))", account: donor)
        }
    }

    /// The receipt's text: the gift, the fee, the net, and whether it supports a tax claim.
    static func text(donation: UUID, campaign: String, gross: Int64, fee: Int64, at: Date, organisation: String?) -> String {
        let day = Date.FormatStyle(date: .long, time: .omitted, locale: Locale(identifier: "en_IE"), timeZone: TimeZone(identifier: "Europe/Dublin")!)
        let tax = organisation.map { "Received by \($0). Keep this receipt with your tax records." }
            ?? "Melon is not a registered charity: this gift is not tax-deductible, and this receipt supports no claim for tax relief."
        return """
            Thank you for your gift to \(campaign).

            Donation: \(CampaignStore.text(donation))
            Date: \(at.formatted(day))
            Given: \(DonationPushes.euros(gross))
            The payment processor's fee: \(DonationPushes.euros(fee))
            To the project: \(DonationPushes.euros(gross - fee))

            All of it goes to running the project.
            \(tax)
            """
    }
}
