import Contracts
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.networks`, `campuses`, `categories` and `traders`: the networks as data, and
/// who traded on them under which username.
struct TraderStore: Sendable {
    let database: Database

    /// A network the marketplace serves.
    struct Network: Sendable {
        let university: String
        let currency: Currency
    }

    func network(_ university: String, on connection: PostgresConnection) async throws -> Network? {
        let rows = try await connection.query("SELECT currency FROM networks WHERE university_id = \(university)", logger: database.logger)
        for try await code in rows.decode(String.self) {
            guard let currency = Currency(rawValue: code) else { return nil }
            return Network(university: university, currency: currency)
        }
        return nil
    }

    /// The network `account` trades in, if it ever traded.
    func network(of account: UUID, on connection: PostgresConnection) async throws -> String? {
        let rows = try await connection.query("SELECT university_id FROM traders WHERE account_id = \(account)", logger: database.logger)
        return try await rows.decode(String.self).first { _ in true }
    }

    func campuses(of university: String, on connection: PostgresConnection) async throws -> [MarketplaceChat.Campus] {
        let rows = try await connection.query(
            "SELECT id, name FROM campuses WHERE university_id = \(university) ORDER BY name", logger: database.logger)
        return try await rows.decode((String, String).self).reduce(into: []) { $0.append(.init(id: $1.0, name: $1.1)) }
    }

    func categories(on connection: PostgresConnection) async throws -> [MarketplaceChat.Category] {
        let rows = try await connection.query("SELECT id, name FROM categories ORDER BY position", logger: database.logger)
        return try await rows.decode((String, String).self).reduce(into: []) { $0.append(.init(id: $1.0, name: $1.1)) }
    }

    func hasCampus(_ campus: String, in university: String, on connection: PostgresConnection) async throws -> Bool {
        try await exists("SELECT 1 FROM campuses WHERE university_id = \(university) AND id = \(campus)", on: connection)
    }

    func hasCategory(_ category: String, on connection: PostgresConnection) async throws -> Bool {
        try await exists("SELECT 1 FROM categories WHERE id = \(category)", on: connection)
    }

    private func exists(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query(query, logger: database.logger).decode(Int.self).first { _ in true } != nil
    }

    /// Keeps `account`'s network and username (no write when both are as kept).
    func record(_ account: UUID, network: String, username: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO traders (account_id, university_id, username, updated_at) VALUES (\(account), \(network), \(username), \(database.now()))
            ON CONFLICT (account_id) DO UPDATE SET university_id = excluded.university_id, username = excluded.username, updated_at = excluded.updated_at
            WHERE traders.username <> excluded.username OR traders.university_id <> excluded.university_id
            """,
            logger: database.logger)
    }

    /// Traders of `university` whose username begins with `query`, then those close to it.
    func search(_ query: String, in university: String, by viewer: UUID, limit: Int, on connection: PostgresConnection) async throws -> [MarketplaceChat.Trader] {
        let prefix = query.lowercased().replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        let rows = try await connection.query(
            """
            SELECT t.account_id FROM traders t
            WHERE t.university_id = \(university)
              AND (lower(t.username) LIKE \(prefix) OR \(query) OPERATOR(extensions.<%) t.username)
              AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = \(viewer) AND b.blocked = t.account_id)
                                                         OR (b.blocker = t.account_id AND b.blocked = \(viewer)))
            ORDER BY lower(t.username) LIKE \(prefix) DESC, extensions.word_similarity(\(query), t.username) DESC, t.username
            LIMIT \(limit)
            """,
            logger: database.logger)
        return try await traders(try await rows.decode(UUID.self).reduce(into: []) { $0.append($1) }, on: connection)
    }

    /// The traders `accounts` names, in that order, with their counts of listings for sale and sold.
    func traders(_ accounts: [UUID], on connection: PostgresConnection) async throws -> [MarketplaceChat.Trader] {
        guard !accounts.isEmpty else { return [] }
        let rows = try await connection.query(
            """
            SELECT t.account_id, t.username,
                (SELECT count(*) FROM listings l WHERE l.seller = t.account_id AND l.state = 'active' AND l.expires_at > \(database.now())),
                (SELECT count(*) FROM listings l WHERE l.seller = t.account_id AND l.state = 'sold')
            FROM traders t WHERE t.account_id = ANY(\(accounts))
            """,
            logger: database.logger)
        let found = try await rows.decode((UUID, String, Int, Int).self).reduce(into: [UUID: MarketplaceChat.Trader]()) { found, row in
            found[row.0] = .init(id: ListingStore.text(row.0), username: row.1, activeListings: row.2, sold: row.3)
        }
        return accounts.compactMap { found[$0] }
    }
}
