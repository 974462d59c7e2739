import Envelope
import Foundation
import PaymentsContract
@testable import PaymentsService
import PostgresNIO
import Testing
import TestSupport

extension PaymentsStackTests {
/// The Melon project's own campaign: given to from any app, with a receipt by email that states
/// the gross, the fee and the net and claims no tax deduction unless an organisation is configured.
@Suite(.timeLimit(.minutes(2))) struct ProjectDonationTests {
    @Test func anyAppGivesToTheProjectAndTheReceiptStatesGrossFeeAndNet() async throws {
        try await InProcessStack.with([.payments]) { http in
            let database = try #require(http.databases["payments"])
            let aoife = UUID()
            // A student in the tax helper's app.
            let student = try await http.signedIn(aoife, as: TestCaller(username: "aoife", app: "melon"))
            let project = try await http.get("/v1/project", headers: student)
            #expect(project.status == 200 && project.json?["campaign"]?["id"] == .string(Payments.projectCampaignId)
                    && project.json?["campaign"]?["title"] == "Keep Melon running" && project.json?["campaign"]?["state"] == "open", "\(project.text)")

            let body = #"{"amount":{"minorUnits":2500,"currency":"EUR"},"paymentMethod":"pm_card_visa","receiptEmail":"Aoife.Byrne@Example.ie"}"#
            let given = try await http.post("/v1/project/donations", json: body, headers: student.merging(["Idempotency-Key": "gift"]) { $1 })
            #expect(given.status == 201 && given.json?["status"] == "succeeded" && given.json?["campaignId"] == .string(Payments.projectCampaignId), "\(given.text)")
            let id = try #require(Donors.string(given, "id"))
            #expect(try await http.get("/v1/donations/\(id)", headers: student).json?["status"] == "succeeded", "one's own donation, from any app")

            let mails = try await database.sentRequests("pdf-email.mail.send.v1")
            #expect(mails.count == 1 && mails.first?["to"] == ["aoife.byrne@example.ie"] && mails.first?["account"] == .string(aoife.uuidString.lowercased()),
                    "\(mails)")
            let fee = SandboxProcessor.fee(2_500)
            guard case .string(let text)? = mails.first?["text"] else { Issue.record("no text"); return }
            for line in ["Given: €25.00", "The payment processor's fee: \(DonationPushes.euros(fee))", "To the project: \(DonationPushes.euros(2_500 - fee))",
                         "this gift is not tax-deductible"] {
                #expect(text.contains(line), "\(line) is not in: \(text)")
            }
            // The address goes with the receipt, which is sent once however often it is asked for.
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM donations WHERE receipt_email IS NOT NULL") == 0)
            try await database.transaction { try await DonationReceipts(database: database, organisation: nil).send(for: UUID(uuidString: id)!, on: $0) }
            #expect(try await database.sentRequests("pdf-email.mail.send.v1").count == 1)
            // Without an address, no receipt; a wrong address is refused naming it.
            let quiet = #"{"amount":{"minorUnits":500,"currency":"EUR"},"paymentMethod":"pm_card_visa"}"#
            #expect(try await http.post("/v1/project/donations", json: quiet, headers: student.merging(["Idempotency-Key": "quiet"]) { $1 }).status == 201)
            #expect(try await database.sentRequests("pdf-email.mail.send.v1").count == 1)
            let wrong = try await http.post(
                "/v1/project/donations", json: #"{"amount":{"minorUnits":500,"currency":"EUR"},"paymentMethod":"pm_card_visa","receiptEmail":"aoife@"}"#,
                headers: student.merging(["Idempotency-Key": "wrong"]) { $1 })
            #expect(wrong.status == 400 && Donors.errorFields(wrong) == ["receiptEmail"], "\(wrong.text)")

            // Karma as for any campaign: +1 per euro to the donor, balanced by the project's own account; the ledger holds.
            #expect(try await database.transaction { try await Ledger(database: database).karma(of: aoife, on: $0) } == 30)
            #expect(try await database.transaction { try await Ledger(database: database).verify(on: $0) }.holds)
        }
    }

    @Test func aReceiptNamesTheOrganisationWhenOneIsConfiguredAndClaimsNoDeductionOtherwise() {
        let at = Date(timeIntervalSince1970: 1_796_400_000)
        let named = DonationReceipts.text(donation: UUID(), campaign: "Keep Melon running", gross: 1_000, fee: 40, at: at, organisation: "Melon Foundation CLG, CHY 12345")
        #expect(named.contains("Received by Melon Foundation CLG, CHY 12345.") && !named.contains("not tax-deductible"), "\(named)")
        let unnamed = DonationReceipts.text(donation: UUID(), campaign: "Keep Melon running", gross: 1_000, fee: 40, at: at, organisation: nil)
        #expect(unnamed.contains("not tax-deductible") && unnamed.contains("To the project: €9.60"), "\(unnamed)")
    }
}
}
