import Foundation
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// The ledger as `Benchmarks/PaymentsBenchmark` measures it, through the service's own code: the
/// postings a succeeded donation makes (`DonationStore.open` and `succeed` in one transaction, as the
/// settle path posts them) and `Ledger.verify`. Not used by the service itself.
public struct LedgerProbe: Sendable {
    let database: Database
    let donations: DonationStore

    public init(database: Database) {
        self.database = database
        donations = DonationStore(database: database, ledger: Ledger(database: database))
    }

    /// Starts `count` open campaigns, each with its own owner: their ids and their owners' karma accounts.
    public func campaigns(_ count: Int) async throws -> [(id: UUID, ownerKarma: UUID)] {
        var made: [(id: UUID, ownerKarma: UUID)] = []
        for index in 0..<count {
            let (campaign, owner) = (UUID(), UUID())
            let karma = try await database.transaction { connection in
                let karma = try await donations.ledger.karmaAccount(of: owner, on: connection)
                try await connection.query(
                    """
                    INSERT INTO campaigns (id, owner_id, title, story, beneficiary, category, goal_minor, currency, ends_at, created_at, owner_karma)
                    VALUES (\(campaign), \(owner), \("Benchmark campaign \(index)"), 'A story.', 'Someone', 'community', 10000000, 'EUR',
                            \(database.later(.seconds(30 * 86_400))), \(database.now()), \(karma))
                    """,
                    logger: database.logger)
                _ = try await donations.ledger.id(of: .campaign(campaign), on: connection)
                return karma
            }
            made.append((campaign, karma))
        }
        return made
    }

    /// A donation of `gross` cents from `donor` to `campaign`, opened and posted with its fee and karma
    /// in one transaction.
    public func donate(_ gross: Int64, from donor: UUID, to campaign: UUID) async throws {
        try await database.transaction { connection in
            let id = try await donations.open(campaign: campaign, donor: donor, anonymous: false, gross: gross, on: connection)
            try await donations.succeed(id, fee: SandboxProcessor.fee(gross), on: connection)
        }
    }

    /// The karma accounts of `count` new donors.
    public func donors(_ count: Int) async throws -> [UUID] {
        try await database.transaction { connection in
            var made: [UUID] = []
            for _ in 0..<count { made.append(try await donations.ledger.karmaAccount(of: UUID(), on: connection)) }
            return made
        }
    }

    /// The ledger alone: one donation's transfer of `gross` (with its fee and karma) posted in a
    /// transaction of its own, as `DonationStore.succeed` posts it.
    public func post(_ gross: Int64, donorKarma: UUID, to campaign: UUID, ownerKarma: UUID) async throws {
        let legs = Postings.donation(campaign: campaign, gross: gross, fee: SandboxProcessor.fee(gross), donorKarma: donorKarma, ownerKarma: ownerKarma)
        try await database.transaction { connection in
            try await donations.ledger.post(UUID(), .donation, campaign: campaign, donation: UUID(), legs: legs, on: connection)
        }
    }

    /// The ledger alone, in batches: these donations' transfers posted by one `Ledger.post` in one transaction.
    public func post(batch: [(gross: Int64, donorKarma: UUID, campaign: UUID, ownerKarma: UUID)]) async throws {
        let transfers = batch.map { gift in
            Ledger.Transfer(
                id: UUID(), kind: .donation, campaign: gift.campaign, donation: UUID(),
                legs: Postings.donation(campaign: gift.campaign, gross: gift.gross, fee: SandboxProcessor.fee(gift.gross), donorKarma: gift.donorKarma,
                                        ownerKarma: gift.ownerKarma))
        }
        try await database.transaction { connection in _ = try await donations.ledger.post(transfers, on: connection) }
    }

    /// `Ledger.verify`: whether every balance is the sum of its entries and every transfer and unit balances.
    public func verify() async throws -> Bool {
        try await database.transaction { try await donations.ledger.verify(on: $0) }.holds
    }
}
