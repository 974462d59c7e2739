import Contracts
import Envelope
import Foundation
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// A campaign's statistics, read from its ledger transfers and their entries (the donations table
/// only says who gave, and whether anonymously).
struct CampaignFigures: Sendable {
    let database: Database

    /// How many of the latest donations a campaign's page shows.
    static let recent = 10

    func statistics(of campaign: UUID, on connection: PostgresConnection) async throws -> Payments.CampaignStatistics {
        let totals = try await connection.query(
            """
            SELECT COALESCE(sum(-e.amount) FILTER (WHERE a.kind = 'campaign' AND t.kind = 'donation'), 0)::bigint,
                   COALESCE(sum(e.amount) FILTER (WHERE a.kind = 'campaign' AND t.kind <> 'donation'), 0)::bigint,
                   COALESCE(sum(e.amount) FILTER (WHERE a.kind = 'fees'), 0)::bigint,
                   count(DISTINCT d.donor_key) FILTER (WHERE t.kind = 'donation')::int,
                   count(DISTINCT t.id) FILTER (WHERE t.kind = 'donation')::int
            FROM ledger_transfers t JOIN ledger_entries e ON e.transfer_id = t.id JOIN ledger_accounts a ON a.id = e.account_id
            JOIN donations d ON d.id = t.donation_id
            WHERE t.campaign_id = \(campaign)
            """,
            logger: database.logger)
        var sums: (gross: Int64, refunded: Int64, fees: Int64, donors: Int, donations: Int) = (0, 0, 0, 0, 0)
        for try await row in totals.decode((Int64, Int64, Int64, Int, Int).self) { sums = row }
        let (gross, refunded, fees, donors, donations) = sums
        let recentRows = try await connection.query(
            """
            SELECT d.gross_minor, CASE WHEN d.anonymous THEN NULL ELSE p.username END, t.created_at
            FROM ledger_transfers t JOIN donations d ON d.id = t.donation_id LEFT JOIN people p ON p.account_id = d.donor_id
            WHERE t.campaign_id = \(campaign) AND t.kind = 'donation' ORDER BY t.seq DESC LIMIT \(Self.recent)
            """,
            logger: database.logger)
        let recent = try await recentRows.decode((Int64, String?, Date).self).reduce(into: [Payments.RecentDonation]()) {
            $0.append(.init(amount: CampaignStore.euros($1.0), donor: $1.1, at: $1.2))
        }
        let dailyRows = try await connection.query(
            """
            SELECT to_char((t.created_at AT TIME ZONE 'Europe/Dublin')::date, 'YYYY-MM-DD'), sum(-e.amount)::bigint
            FROM ledger_transfers t JOIN ledger_entries e ON e.transfer_id = t.id JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'campaign'
            WHERE t.campaign_id = \(campaign) GROUP BY 1 ORDER BY 1
            """,
            logger: database.logger)
        let daily = try await dailyRows.decode((String, Int64).self).reduce(into: [Payments.DailyTotal]()) {
            $0.append(.init(day: $1.0, amount: CampaignStore.euros($1.1)))
        }
        let kept = gross - refunded
        return Payments.CampaignStatistics(
            gross: CampaignStore.euros(gross), refunded: CampaignStore.euros(refunded), fees: CampaignStore.euros(fees),
            net: CampaignStore.euros(kept - fees), donors: donors, donations: donations,
            averageGift: CampaignStore.euros(donations > 0 ? kept / Int64(donations) : 0), recent: recent, daily: daily)
    }
}
