import Foundation
import NotificationsContract
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// The job `campaigns.remind` (hourly, one instance at a time): the seed's periodic reminder to
/// owners (R20) and the last milestone, through notifications' outbox in the job's transaction.
/// - Each week while a campaign is open, its owner (unless they turned `weeklyProgress` off) hears
///   what it raised of its goal and how many gave that week, counted from its start.
/// - Three days before its end, its owner and everyone who bookmarked it hear it ends soon, once.
struct CampaignReminders: Sendable {
    let database: Database
    let pushes: DonationPushes

    /// Campaigns told per kind and round: the rest wait for the next hour.
    static let batch = 200

    /// How many campaigns were told this round.
    func run(on connection: PostgresConnection) async throws -> Int {
        try await weekly(on: connection) + (try await endingSoon(on: connection))
    }

    private func weekly(on connection: PostgresConnection) async throws -> Int {
        let now = database.now(), weekAgo = database.ago(.seconds(7 * 86_400))
        let rows = try await connection.query(
            """
            UPDATE campaigns c SET progress_told_at = \(now)
            FROM (SELECT id FROM campaigns
                  WHERE closed_at IS NULL AND weekly_progress AND ends_at > \(now) AND owner_id IS NOT NULL
                    AND COALESCE(progress_told_at, created_at) <= \(weekAgo)
                  ORDER BY COALESCE(progress_told_at, created_at) LIMIT \(Self.batch) FOR UPDATE SKIP LOCKED) due
            WHERE c.id = due.id
            RETURNING c.id, c.owner_id, c.title, c.goal_minor,
                      -COALESCE((SELECT a.balance FROM ledger_accounts a WHERE a.kind = 'campaign' AND a.campaign_id = c.id), 0),
                      (SELECT count(*)::int FROM donations d WHERE d.campaign_id = c.id AND d.succeeded_at >= \(weekAgo))
            """,
            logger: database.logger)
        var told = 0
        for try await (campaign, owner, title, goal, raised, gifts) in rows.decode((UUID, UUID, String, Int64, Int64, Int).self) {
            let progress = CampaignStore.progress(raised, of: goal) / 100
            let week = gifts == 0 ? "no new donations this week" : gifts == 1 ? "1 donation this week" : "\(gifts) donations this week"
            try await pushes.push(
                .campaignProgress, to: [owner], title: title,
                body: "\(DonationPushes.euros(raised)) of \(DonationPushes.euros(goal)) raised (\(progress)%), \(week)",
                data: ["campaignId": CampaignStore.text(campaign)], on: connection)
            told += 1
        }
        return told
    }

    private func endingSoon(on connection: PostgresConnection) async throws -> Int {
        let now = database.now()
        let rows = try await connection.query(
            """
            UPDATE campaigns c SET ending_told_at = \(now)
            FROM (SELECT id FROM campaigns
                  WHERE closed_at IS NULL AND ending_told_at IS NULL AND ends_at > \(now) AND ends_at <= \(database.later(.seconds(3 * 86_400)))
                  ORDER BY ends_at LIMIT \(Self.batch) FOR UPDATE SKIP LOCKED) due
            WHERE c.id = due.id
            RETURNING c.id, c.owner_id, c.title, c.goal_minor,
                      -COALESCE((SELECT a.balance FROM ledger_accounts a WHERE a.kind = 'campaign' AND a.campaign_id = c.id), 0)
            """,
            logger: database.logger)
        var told = 0
        for try await (campaign, owner, title, goal, raised) in rows.decode((UUID, UUID?, String, Int64, Int64).self) {
            try await pushes.push(
                .campaignMilestone, to: try await pushes.followers(of: campaign, owner: owner, on: connection), title: title,
                body: "\(title) ends in three days: \(DonationPushes.euros(raised)) of \(DonationPushes.euros(goal)) raised",
                data: ["campaignId": CampaignStore.text(campaign)], on: connection)
            told += 1
        }
        return told
    }
}
