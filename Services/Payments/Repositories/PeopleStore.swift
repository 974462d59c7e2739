import Foundation
import PostgresNIO
import PostgresSupport

/// `payments.people`: the username each account goes by (the token's, kept whenever it acts).
struct PeopleStore: Sendable {
    let database: Database

    func record(_ account: UUID, username: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO people (account_id, username, updated_at) VALUES (\(account), \(username), \(database.now()))
            ON CONFLICT (account_id) DO UPDATE SET username = EXCLUDED.username, updated_at = EXCLUDED.updated_at
            WHERE people.username <> EXCLUDED.username
            """,
            logger: database.logger)
    }
}
