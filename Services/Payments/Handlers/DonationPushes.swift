import Foundation
import NotificationsContract
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// The pushes a succeeded donation sends, through notifications' outbox in the transaction that
/// posts it (so a donation posted is told once, and one rolled back never): its campaign's owner
/// hears of each donation (the donor by username unless they gave anonymously); the owner and
/// everyone who bookmarked the campaign hear when it passes half its goal and its goal, once each.
struct DonationPushes: Sendable {
    let database: Database

    /// The milestones, in basis points of the goal, and what their push says.
    static let milestones: [(share: Int64, body: String)] = [(5_000, "is half way to its goal"), (10_000, "reached its goal")]

    func succeeded(_ donation: UUID, on connection: PostgresConnection) async throws {
        let rows = try await connection.query(
            """
            SELECT c.id, c.owner_id, c.title, c.goal_minor, d.gross_minor, CASE WHEN d.anonymous THEN NULL ELSE p.username END, -a.balance
            FROM donations d JOIN campaigns c ON c.id = d.campaign_id LEFT JOIN people p ON p.account_id = d.donor_id
            JOIN ledger_accounts a ON a.kind = 'campaign' AND a.campaign_id = c.id WHERE d.id = \(donation)
            """,
            logger: database.logger)
        for try await (campaign, owner, title, goal, gross, donor, raised) in rows.decode((UUID, UUID?, String?, Int64, Int64, String?, Int64).self) {
            guard let title else { return }
            let data = ["campaignId": CampaignStore.text(campaign)]
            if let owner {
                try await push(.donationReceived, to: [owner], title: "New donation", body: "\(donor ?? "Someone") gave \(Self.euros(gross)) to \(title)",
                               data: data.merging(["donationId": CampaignStore.text(donation)]) { $1 }, on: connection)
            }
            let before = raised - gross
            for milestone in Self.milestones where before * 10_000 < goal * milestone.share && raised * 10_000 >= goal * milestone.share {
                // Told once: crossed again after a refund, it is not told again.
                let first = try await connection.query(
                    "UPDATE campaigns SET milestones_told = \(milestone.share) WHERE id = \(campaign) AND milestones_told < \(milestone.share) RETURNING 1",
                    logger: database.logger
                ).collect().count == 1
                guard first else { continue }
                try await push(
                    .campaignMilestone, to: try await followers(of: campaign, owner: owner, on: connection), title: title, body: "\(title) \(milestone.body)",
                    data: data, on: connection)
            }
        }
    }

    /// The campaign's owner (unless their account is gone) and everyone who bookmarked it.
    func followers(of campaign: UUID, owner: UUID?, on connection: PostgresConnection) async throws -> Set<UUID> {
        let marked = try await connection.query("SELECT account_id FROM bookmarks WHERE campaign_id = \(campaign)", logger: database.logger)
        var recipients = Set(owner.map { [$0] } ?? [])
        for try await account in marked.decode(UUID.self) { recipients.insert(account) }
        return recipients
    }

    func push(_ event: Notifications.EventType, to recipients: Set<UUID>, title: String, body: String, data: [String: String],
                      on connection: PostgresConnection) async throws {
        guard !recipients.isEmpty else { return }
        let content = Notifications.Content(
            app: event.app, eventType: event.name, category: event.category, alert: .init(title: title, body: body), data: data,
            threadID: data["campaignId"].map { "campaign-\($0)" })
        try await database.enqueue(Notifications.Push.Send.self, .init(recipients: recipients.map(CampaignStore.text).sorted(), content: content), on: connection)
    }

    /// `cents` as the app shows euros: €25.00.
    static func euros(_ cents: Int64) -> String { "€\(cents / 100).\(String(format: "%02d", cents % 100))" }
}
