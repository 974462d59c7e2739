import Foundation
import PaymentsService
import PostgresNIO
import PostgresSupport
import ServiceKit
import TestSupport

/// `payments-benchmark`: the ledger's postings per second, by concurrent callers through the
/// service's own code, one transaction each: succeeded donations opened and posted with their fee
/// and karma, and their transfers alone (`Ledger.post`, five entries each), one and `--batch` to a
/// transaction; then `Ledger.verify`,
/// reconciliation's proof, over a ledger of a million entries.
///
///     TEST_DATABASE_URL=postgres://... .build/release/payments-benchmark [--runs 3] [--donations 5000] [--concurrency 16]
///         [--campaigns 20] [--batch 100] [--entries 1000000]
@main
struct PaymentsBenchmark {
    static func main() async throws {
        let arguments = CommandLine.arguments
        func option(_ name: String, _ fallback: Int) -> Int {
            guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
            return Int(arguments[index + 1]) ?? fallback
        }
        let runs = option("--runs", 3), count = option("--donations", 5_000), concurrency = option("--concurrency", 16)
        let campaignCount = option("--campaigns", 20), entries = option("--entries", 1_000_000), batchSize = option("--batch", 100)
        for run in 1...runs {
            for batch in [0, 1, batchSize] {
                let (rate, holds) = try await postingsPerSecond(count, concurrency: concurrency, campaigns: campaignCount, batch: batch)
                let what = batch == 0 ? "donations opened and posted" : "transfers posted alone (Ledger.post), \(batch) a transaction"
                print("run \(run): \(count) \(what), \(concurrency) at once, \(campaignCount) campaigns: \(Int(rate))/s (\(Int(rate * 5)) entries/s); verified: \(holds)")
            }
        }
        for run in 1...runs {
            let (seconds, holds) = try await verifySeconds(entries: entries)
            print("run \(run): Ledger.verify over \(entries) entries: \(String(format: "%.2f", seconds)) s; holds: \(holds)")
        }
    }

    /// A fresh schema of the payments service, migrated, for `body`.
    static func withLedger<T: Sendable>(connections: Int, _ body: @Sendable (Database) async throws -> T) async throws -> T {
        let database = try TestDatabase.make(schema: "payments", maximumConnections: connections)
        let fresh = try TestDatabase.make(schema: "payments", maximumConnections: 1)
        var result: T?
        try await BusHarness.with([fresh]) {
            try await fresh.transaction { try await $0.query("DROP SCHEMA IF EXISTS payments CASCADE", logger: fresh.logger) }
        }
        try await BusHarness.with([database]) {
            _ = try await database.migrate(try ServiceDefinition.payments.migrations())
            result = try await body(database)
        }
        return result!
    }

    /// Donations opened and posted per second (`batch` 0), or their transfers alone, `batch` to a
    /// transaction, posted by `Ledger.post`; and whether the ledger still proves.
    static func postingsPerSecond(_ count: Int, concurrency: Int, campaigns campaignCount: Int, batch: Int) async throws -> (Double, Bool) {
        try await withLedger(connections: concurrency) { database in
            let probe = LedgerProbe(database: database)
            let campaigns = try await probe.campaigns(campaignCount)
            let donors = batch > 0 ? try await probe.donors(max(count / 5, 1)) : (0..<max(count / 5, 1)).map { _ in UUID() }
            let started = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<concurrency {
                    group.addTask {
                        let mine = Array(stride(from: lane, to: count, by: concurrency))
                        for part in stride(from: 0, to: mine.count, by: max(batch, 1)) {
                            let gifts = mine[part..<min(part + max(batch, 1), mine.count)].map { index in
                                (gross: Int64(100 + index % 10_000), donorKarma: donors[index % donors.count], campaign: campaigns[index % campaigns.count].id,
                                 ownerKarma: campaigns[index % campaigns.count].ownerKarma)
                            }
                            if batch > 0 {
                                try await probe.post(batch: gifts)
                            } else {
                                try await probe.donate(gifts[0].gross, from: gifts[0].donorKarma, to: gifts[0].campaign)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let rate = Double(count) / seconds(started.duration(to: .now))
            return (rate, try await probe.verify())
        }
    }

    /// A ledger of `entries` entries (five a donation: the processor, fees, the campaign, two karma
    /// accounts), filled by SQL with the rules' triggers off and the balances set from the entries, as
    /// the service would have left it; then how long `Ledger.verify` takes.
    static func verifySeconds(entries: Int) async throws -> (Double, Bool) {
        try await withLedger(connections: 2) { database in
            let transfers = entries / 5
            try await database.transaction { connection in
                for statement in [
                    "ALTER TABLE ledger_entries DISABLE TRIGGER USER",
                    """
                    INSERT INTO ledger_accounts (id, kind, unit, created_at) VALUES (gen_random_uuid(), 'processor', 'EUR', now()), (gen_random_uuid(), 'fees', 'EUR', now())
                    ON CONFLICT DO NOTHING
                    """,
                    "CREATE TEMP TABLE bc AS SELECT i, gen_random_uuid() AS id, gen_random_uuid() AS campaign FROM generate_series(0, 999) i",
                    "INSERT INTO ledger_accounts (id, kind, unit, campaign_id, created_at) SELECT id, 'campaign', 'EUR', campaign, now() FROM bc",
                    "CREATE TEMP TABLE bk AS SELECT i, gen_random_uuid() AS id FROM generate_series(0, 9999) i",
                    "INSERT INTO ledger_accounts (id, kind, unit, account_id, created_at) SELECT id, 'karma', 'KARMA', gen_random_uuid(), now() FROM bk",
                    "CREATE TEMP TABLE bt AS SELECT i, gen_random_uuid() AS id, 100 + (i * 7919) % 100000 AS gross FROM generate_series(0, \(transfers - 1)) i",
                    """
                    INSERT INTO ledger_transfers (id, kind, campaign_id, donation_id, created_at)
                    SELECT bt.id, 'donation', bc.campaign, gen_random_uuid(), now() FROM bt JOIN bc ON bc.i = bt.i % 1000
                    """,
                    """
                    INSERT INTO ledger_entries (transfer_id, account_id, amount)
                    SELECT bt.id, (SELECT id FROM ledger_accounts WHERE kind = 'processor'), gross - (25 + gross * 15 / 1000) FROM bt
                    UNION ALL SELECT bt.id, (SELECT id FROM ledger_accounts WHERE kind = 'fees'), 25 + gross * 15 / 1000 FROM bt
                    UNION ALL SELECT bt.id, bc.id, -gross FROM bt JOIN bc ON bc.i = bt.i % 1000
                    UNION ALL SELECT bt.id, bk.id, gross / 100 FROM bt JOIN bk ON bk.i = bt.i % 10000
                    UNION ALL SELECT bt.id, bk.id, -(gross / 100) FROM bt JOIN bk ON bk.i = (bt.i + 5000) % 10000
                    """,
                    "UPDATE ledger_accounts a SET balance = s.total FROM (SELECT account_id, sum(amount) AS total FROM ledger_entries GROUP BY account_id) s WHERE s.account_id = a.id",
                    "ALTER TABLE ledger_entries ENABLE TRIGGER USER",
                ] {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: database.logger)
                }
            }
            try await database.transaction { try await $0.query("ANALYZE ledger_accounts, ledger_transfers, ledger_entries", logger: database.logger) }
            let probe = LedgerProbe(database: database)
            let started = ContinuousClock.now
            let holds = try await probe.verify()
            return (seconds(started.duration(to: .now)), holds)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
