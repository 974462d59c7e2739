import Contracts
import Crypto
import Envelope
import Foundation
import PaymentsContract
import PostgresNIO
import PostgresSupport
import Synchronization

/// The double-entry ledger (`0001_ledger.sql`): accounts, transfers and their entries. PostgreSQL
/// holds its rules (a transfer balances at commit, nothing is updated or deleted, balances move
/// with their entries); this posts transfers and proves the rules held (`verify`).
struct Ledger: Sendable {
    let database: Database
    /// The processor's and the fees' account ids, read once: accounts are never deleted.
    private let singletons = Singletons()

    init(database: Database) {
        self.database = database
    }

    private final class Singletons: Sendable {
        let ids = Mutex<[Account: UUID]>([:])
    }

    static let karmaUnit = "KARMA"

    /// Which account a leg of a transfer moves.
    enum Account: Hashable, Sendable {
        /// Our money at the payment processor.
        case processor
        /// What the processor kept.
        case fees
        /// The funds campaign `id` holds.
        case campaign(UUID)
        /// A ledger account by its own id (a karma account, kept beside what it is for).
        case id(UUID)
    }

    enum TransferKind: String, Sendable, CaseIterable {
        case donation, refund, dispute, fee
        /// A household debt paid in the app.
        case settleUp = "settle_up"
    }

    /// One side of a transfer: debit positive, credit negative.
    struct Leg: Equatable, Sendable {
        let account: Account
        let amount: Int64
    }

    /// One transfer to post: a donation's success, a refund, a dispute or a late fee; or a settle-up's.
    struct Transfer: Sendable {
        let id: UUID
        let kind: TransferKind
        /// The campaign given to; nil for a settle-up.
        let campaign: UUID?
        let donation: UUID
        let legs: [Leg]
    }

    /// Posts transfer `id` with `legs` in the caller's transaction, unless a transfer `id` was
    /// posted already; whether it was posted now.
    @discardableResult
    func post(_ id: UUID, _ kind: TransferKind, campaign: UUID?, donation: UUID, legs: [Leg], on connection: PostgresConnection) async throws -> Bool {
        try await post([Transfer(id: id, kind: kind, campaign: campaign, donation: donation, legs: legs)], on: connection).contains(id)
    }

    /// Posts `transfers` (zero legs left out, legs of one account summed) in the caller's
    /// transaction, each unless it was posted already, in two statements whatever their number; the
    /// ids posted now. Each transfer's legs must balance in each unit: the database refuses the
    /// statement otherwise (`0008_ledger_statements.sql`), and moves the balances in the order of
    /// their accounts' ids, so two postings lock the balances they share in one order.
    @discardableResult
    func post(_ transfers: [Transfer], on connection: PostgresConnection) async throws -> Set<UUID> {
        guard !transfers.isEmpty else { return [] }
        // A settle-up's campaign (none) goes as '' in the array of texts.
        let inserted = try await connection.query(
            """
            INSERT INTO ledger_transfers (id, kind, campaign_id, donation_id, created_at)
            SELECT id, kind, NULLIF(campaign, '')::uuid, donation, \(database.now())
            FROM unnest(\(transfers.map(\.id))::uuid[], \(transfers.map(\.kind.rawValue))::text[], \(transfers.map { $0.campaign?.uuidString ?? "" })::text[],
                        \(transfers.map(\.donation))::uuid[]) AS t (id, kind, campaign, donation)
            ON CONFLICT (id) DO NOTHING RETURNING id
            """,
            logger: database.logger)
        var posted = Set<UUID>()
        for try await id in inserted.decode(UUID.self) { posted.insert(id) }
        var ids: [UUID] = [], accounts: [UUID] = [], amounts: [Int64] = []
        for transfer in transfers where posted.contains(transfer.id) {
            for leg in transfer.legs where leg.amount != 0 {
                ids.append(transfer.id)
                accounts.append(try await self.id(of: leg.account, on: connection))
                amounts.append(leg.amount)
            }
        }
        guard !ids.isEmpty else { return posted }
        try await connection.query(
            """
            INSERT INTO ledger_entries (transfer_id, account_id, amount)
            SELECT transfer, account, sum(amount) FROM unnest(\(ids)::uuid[], \(accounts)::uuid[], \(amounts)::bigint[]) AS leg (transfer, account, amount)
            GROUP BY transfer, account HAVING sum(amount) <> 0
            """,
            logger: database.logger)
        return posted
    }

    /// The transfer of something the processor did (`refund:re_…`, `dispute:dp_…`): the same id
    /// whichever way we learn of it, each time we do.
    static func transfer(processor name: String) -> UUID {
        let bytes = Array(SHA256.hash(data: Data("stripe:\(name)".utf8)).prefix(16))
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                           bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// The id of `account`: the processor's and the fees' (made by the migrations) are kept once read;
    /// a campaign's is made with the campaign, and here when it is missing.
    func id(of account: Account, on connection: PostgresConnection) async throws -> UUID {
        let kind: String, campaign: UUID?
        switch account {
        case .id(let id): return id
        case .processor, .fees:
            if let id = singletons.ids.withLock({ $0[account] }) { return id }
            (kind, campaign) = (account == .processor ? "processor" : "fees", nil)
        case .campaign(let id):
            (kind, campaign) = ("campaign", id)
        }
        // Each of these is an index's lookup (the singletons' and the campaigns' partial unique indexes).
        let query: PostgresQuery = campaign.map { "SELECT id FROM ledger_accounts WHERE kind = 'campaign' AND campaign_id = \($0)" }
            ?? "SELECT id FROM ledger_accounts WHERE kind = \(kind) AND unit = \(Payments.currency.code)"
        var found = try await connection.query(query, logger: database.logger).decode(UUID.self).first { _ in true }
        if found == nil {
            try await connection.query(
                """
                INSERT INTO ledger_accounts (id, kind, unit, campaign_id, created_at) VALUES (\(UUID()), \(kind), \(Payments.currency.code), \(campaign), \(database.now()))
                ON CONFLICT DO NOTHING
                """,
                logger: database.logger)
            found = try await connection.query(query, logger: database.logger).decode(UUID.self).first { _ in true }
        }
        guard let id = found else { throw OperationError(.unavailable, "a ledger account was not made; try again") }
        if campaign == nil { singletons.ids.withLock { $0[account] = id } }
        return id
    }

    /// `account`'s karma account, made on first use.
    func karmaAccount(of account: UUID, on connection: PostgresConnection) async throws -> UUID {
        try await personalAccount("karma", unit: Self.karmaUnit, of: account, on: connection)
    }

    /// The account of the money held for `account` as a member paid in the household app (in
    /// euros), made on first use.
    func memberAccount(of account: UUID, on connection: PostgresConnection) async throws -> UUID {
        try await personalAccount("member", unit: Payments.currency.code, of: account, on: connection)
    }

    private func personalAccount(_ kind: String, unit: String, of account: UUID, on connection: PostgresConnection) async throws -> UUID {
        try await connection.query(
            """
            INSERT INTO ledger_accounts (id, kind, unit, account_id, created_at) VALUES (\(UUID()), \(kind), \(unit), \(account), \(database.now()))
            ON CONFLICT DO NOTHING
            """,
            logger: database.logger)
        let rows = try await connection.query("SELECT id FROM ledger_accounts WHERE kind = \(kind) AND account_id = \(account)", logger: database.logger)
        guard let id = try await rows.decode(UUID.self).first(where: { _ in true }) else { throw OperationError(.unavailable, "a \(kind) account was not made; try again") }
        return id
    }

    /// `account`'s karma points (0 before any).
    func karma(of account: UUID, on connection: PostgresConnection) async throws -> Int64 {
        let rows = try await connection.query("SELECT balance FROM ledger_accounts WHERE kind = 'karma' AND account_id = \(account)", logger: database.logger)
        return try await rows.decode(Int64.self).first { _ in true } ?? 0
    }

    /// The number (`seq`) of the last transfer posted, 0 before any: a moment of the ledger that
    /// balances can be read as of, since nothing posted is ever changed.
    func lastTransfer(on connection: PostgresConnection) async throws -> Int64 {
        let rows = try await connection.query("SELECT COALESCE(max(seq), 0)::bigint FROM ledger_transfers", logger: database.logger)
        return try await rows.decode(Int64.self).first { _ in true } ?? 0
    }

    /// What reconciliation proves of the ledger; every count is zero when it holds.
    struct Proof: Equatable, Sendable {
        /// Accounts whose balance is not the sum of their entries.
        var balancesOff: Int
        /// Transfers whose entries do not sum to zero in a unit.
        var unbalancedTransfers: Int
        /// Units whose entries do not sum to zero overall (debits unlike credits).
        var unitsOff: Int

        var holds: Bool { balancesOff == 0 && unbalancedTransfers == 0 && unitsOff == 0 }
    }

    func verify(on connection: PostgresConnection) async throws -> Proof {
        let rows = try await connection.query(
            """
            SELECT
              (SELECT count(*)::int FROM ledger_accounts a
               WHERE a.balance <> COALESCE((SELECT sum(e.amount) FROM ledger_entries e WHERE e.account_id = a.id), 0)),
              (SELECT count(*)::int FROM (SELECT 1 FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
                                         GROUP BY e.transfer_id, a.unit HAVING sum(e.amount) <> 0) t),
              (SELECT count(*)::int FROM (SELECT 1 FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
                                         GROUP BY a.unit HAVING sum(e.amount) <> 0) u)
            """,
            logger: database.logger)
        var proof = Proof(balancesOff: 0, unbalancedTransfers: 0, unitsOff: 0)
        for try await (balances, transfers, units) in rows.decode((Int, Int, Int).self) {
            proof = Proof(balancesOff: balances, unbalancedTransfers: transfers, unitsOff: units)
        }
        return proof
    }
}
