import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.blocks` and `spots`: who blocked whom, and the networks' safe meeting spots.
struct BlockStore: Sendable {
    let database: Database

    /// A condition for queries: no block between `viewer` and the account in `column`, either way.
    static func unblocked(_ column: String, viewerPlaceholder: String) -> String {
        """
        NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = \(viewerPlaceholder) AND b.blocked = \(column))
                                              OR (b.blocker = \(column) AND b.blocked = \(viewerPlaceholder)))
        """
    }

    /// Whether either of the two blocked the other.
    func between(_ one: UUID, _ other: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            "SELECT 1 FROM blocks WHERE (blocker = \(one) AND blocked = \(other)) OR (blocker = \(other) AND blocked = \(one))",
            logger: database.logger)
        return try await rows.decode(Int.self).first { _ in true } != nil
    }

    func block(_ account: UUID, by blocker: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            "INSERT INTO blocks (blocker, blocked, created_at) VALUES (\(blocker), \(account), \(database.now())) ON CONFLICT DO NOTHING",
            logger: database.logger)
    }

    func unblock(_ account: UUID, by blocker: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM blocks WHERE blocker = \(blocker) AND blocked = \(account)", logger: database.logger)
    }

    /// Those `blocker` blocked, with the usernames of those who trade in `university` (another
    /// network's are not the caller's to learn).
    func blocked(by blocker: UUID, in university: String, on connection: PostgresConnection) async throws -> [MarketplaceChat.Blocked] {
        let rows = try await connection.query(
            """
            SELECT b.blocked, t.username, b.created_at FROM blocks b
            LEFT JOIN traders t ON t.account_id = b.blocked AND t.university_id = \(university)
            WHERE b.blocker = \(blocker) ORDER BY b.created_at DESC, b.blocked LIMIT 1000
            """,
            logger: database.logger)
        return try await rows.decode((UUID, String?, Date).self).reduce(into: []) { list, row in
            list.append(.init(id: ListingStore.text(row.0), username: row.1, at: row.2))
        }
    }

    /// Those `blocker` blocked, by the name they chat under when the two share a conversation (a
    /// block of any other id teaches no name).
    func blockedChatters(by blocker: UUID, on connection: PostgresConnection) async throws -> [MarketplaceChat.Blocked] {
        let rows = try await connection.query(
            """
            SELECT b.blocked, c.username, b.created_at FROM blocks b
            LEFT JOIN chatters c ON c.account_id = b.blocked AND EXISTS (
                SELECT 1 FROM conversation_members me JOIN conversation_members other ON other.conversation_id = me.conversation_id
                WHERE me.account_id = \(blocker) AND other.account_id = b.blocked)
            WHERE b.blocker = \(blocker) ORDER BY b.created_at DESC, b.blocked LIMIT 1000
            """,
            logger: database.logger)
        return try await rows.decode((UUID, String?, Date).self).reduce(into: []) { list, row in
            list.append(.init(id: ListingStore.text(row.0), username: row.1, at: row.2))
        }
    }

    /// Forgets the blocks `account` set or was the object of (its erasure).
    func forget(_ account: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM blocks WHERE blocker = \(account) OR blocked = \(account)", logger: database.logger)
    }

    func spots(of university: String, campus: String?, on connection: PostgresConnection) async throws -> [MarketplaceChat.Spot] {
        let rows = try await connection.query(
            """
            SELECT id, campus_id, name, description, latitude::float8, longitude::float8, hours FROM spots
            WHERE university_id = \(university) AND (\(campus)::text IS NULL OR campus_id = \(campus)) ORDER BY campus_id, name
            """,
            logger: database.logger)
        return try await rows.decode((String, String, String, String, Double, Double, String).self).reduce(into: []) { list, row in
            list.append(.init(id: row.0, campus: row.1, name: row.2, description: row.3, latitude: row.4, longitude: row.5, hours: row.6))
        }
    }
}
