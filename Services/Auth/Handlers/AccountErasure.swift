import Contracts
import Foundation
import PostgresNIO
import PostgresSupport

/// Tells every service that keeps a user's data that an account was deleted, through the outbox in
/// the deleting transaction, so each removes or anonymises what it holds. A service that starts
/// keeping personal data adds its erase operation here (and handles repeats: the outbox delivers at
/// least once).
enum AccountErasure {
    static func notify(account: UUID, email: String, database: Database, on connection: PostgresConnection) async throws {
        let id = account.uuidString.lowercased()
        try await database.enqueue(
            PdfEmail.Account.Erase.self, .init(account: id, email: email), on: connection, idempotencyKey: "erase-\(id)")
        try await database.enqueue(
            RefundCalculator.Account.Erase.self, .init(account: id, email: email), on: connection, idempotencyKey: "erase-\(id)")
    }
}
