import AuthContract
import Contracts
import ServiceCatalog
import Foundation
import PostgresNIO
import PostgresSupport

/// Tells every service that keeps a user's data that an account was deleted, through the outbox in
/// the deleting transaction, so each removes or anonymises what it holds: every erase operation in
/// the service catalog, so a service joins by declaring one (and handling repeats: the outbox
/// delivers at least once).
enum ErasureFanOut {
    static func notify(account: UUID, email: String, database: Database, on connection: PostgresConnection) async throws {
        let id = account.uuidString.lowercased()
        for erase in ServiceCatalog.erasures {
            try await database.enqueue(erase, AccountErasure(account: id, email: email), on: connection, idempotencyKey: "erase-\(id)")
        }
    }
}
