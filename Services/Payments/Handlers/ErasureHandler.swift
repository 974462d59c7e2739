import Bus
import Contracts
import Envelope
import Foundation
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// `payments.account.erase.v1`: a deleted account's campaigns lose their texts and close, its
/// bookmarks, username and donor pseudonym go; its donations, settle-ups (paid or paid to it), karma
/// account and money held for it keep their ledger entries without the account. Money history is never rewritten. A repeat finds nothing.
struct ErasureHandler: Sendable {
    let database: Database

    @Sendable
    func erase(_ request: AccountErasure, _ context: RequestContext) async throws -> Payments.Account.Erase.Response {
        guard let account = UUID(uuidString: request.account) else { throw OperationError.invalid(field: "data.account", "must be an account id") }
        return try await database.transaction { connection in
            let closed = try await connection.query(
                """
                WITH gone AS (
                    UPDATE campaigns SET closed_at = COALESCE(closed_at, LEAST(ends_at, \(database.now()))), title = NULL, story = NULL,
                        beneficiary = NULL, owner_id = NULL, version = version + 1
                    WHERE owner_id = \(account) RETURNING 1)
                SELECT count(*)::int FROM gone
                """,
                logger: database.logger)
            let campaignsClosed = try await closed.decode(Int.self).first { _ in true } ?? 0
            let marks = try await connection.query(
                "WITH gone AS (DELETE FROM bookmarks WHERE account_id = \(account) RETURNING 1) SELECT count(*)::int FROM gone", logger: database.logger)
            let bookmarksDeleted = try await marks.decode(Int.self).first { _ in true } ?? 0
            try await connection.query("UPDATE donations SET donor_id = NULL, client_key = NULL, payment_method = NULL, receipt_email = NULL WHERE donor_id = \(account)", logger: database.logger)
            try await connection.query("UPDATE refunds SET requested_by = NULL, client_key = NULL WHERE requested_by = \(account)", logger: database.logger)
            try await connection.query("DELETE FROM donor_keys WHERE account_id = \(account)", logger: database.logger)
            try await connection.query("UPDATE donations SET payee_id = NULL WHERE payee_id = \(account)", logger: database.logger)
            try await connection.query(
                "UPDATE ledger_accounts SET account_id = NULL WHERE kind IN ('karma', 'member') AND account_id = \(account)", logger: database.logger)
            try await connection.query("DELETE FROM people WHERE account_id = \(account)", logger: database.logger)
            // Its receipts still waiting in the outbox, and its uploads (the cover pictures of its campaigns).
            _ = try await database.dropUndelivered(account: account, on: connection)
            _ = try await database.forgetMedia(of: account, on: connection)
            context.logger.notice("account erased", metadata: ["campaigns": "\(campaignsClosed)", "bookmarks": "\(bookmarksDeleted)"])
            return .init(campaignsClosed: campaignsClosed, bookmarksDeleted: bookmarksDeleted)
        }
    }
}
