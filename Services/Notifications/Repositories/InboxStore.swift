import Foundation
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// The inbox: the `notifications` table, read per account and app. Unread counts are counted from
/// the rows each time (an index holds only unread rows), so no counter can drift under concurrent writes.
struct InboxStore: Sendable {
    let database: Database

    func list(account: UUID, _ request: Notifications.Inbox.List.Request, limit: Int) async throws -> (items: [Notifications.Inbox.Item], next: Int64?) {
        try await database.transaction { connection in
            let rows = try await connection.query(
                """
                SELECT id, seq, app, event_type, category, alert::text, data::text, created_at, read_at FROM notifications
                WHERE account_id = \(account) AND app = \(request.app.rawValue)
                  AND (\(request.category)::text IS NULL OR category = \(request.category))
                  AND (NOT \(request.unread ?? false) OR read_at IS NULL)
                  AND seq < \(request.after ?? Int64.max)
                ORDER BY seq DESC LIMIT \(limit + 1)
                """,
                logger: database.logger)
            var items: [(Int64, Notifications.Inbox.Item)] = []
            for try await (id, seq, app, type, category, alert, data, created, read) in rows.decode(
                (UUID, Int64, String, String, String, String?, String?, Date, Date?).self)
            {
                items.append((seq, Notifications.Inbox.Item(
                    id: id.uuidString.lowercased(), app: .init(rawValue: app) ?? request.app, eventType: type, category: category,
                    alert: JSONColumn.value(Notifications.Alert.self, alert), data: JSONColumn.value([String: String].self, data),
                    createdAt: created, readAt: read)))
            }
            let page = items.prefix(limit)
            return (page.map(\.1), items.count > limit ? page.last?.0 : nil)
        }
    }

    /// Marks unread notifications read: those in `ids`, or of `category`, or all (both nil).
    func markRead(account: UUID, app: Notifications.App, ids: [UUID]?, category: String?) async throws -> Int {
        try await database.transaction { connection in
            try await connection.query(
                """
                UPDATE notifications SET read_at = \(database.now())
                WHERE account_id = \(account) AND app = \(app.rawValue) AND read_at IS NULL
                  AND (\(ids)::uuid[] IS NULL OR id = ANY(\(ids)))
                  AND (\(category)::text IS NULL OR category = \(category))
                RETURNING 1
                """,
                logger: database.logger
            ).collect().count
        }
    }

    func badges(account: UUID, app: Notifications.App) async throws -> Notifications.Inbox.Badges.Response {
        try await database.transaction { connection in try await badges(account: account, app: app.rawValue, on: connection) }
    }

    func badges(account: UUID, app: String, on connection: PostgresConnection) async throws -> Notifications.Inbox.Badges.Response {
        let rows = try await connection.query(
            """
            SELECT category, count(*)::int FROM notifications
            WHERE account_id = \(account) AND app = \(app) AND read_at IS NULL GROUP BY category
            """,
            logger: database.logger)
        var categories: [String: Int] = [:]
        for try await (category, count) in rows.decode((String, Int).self) { categories[category] = count }
        return .init(total: categories.values.reduce(0, +), categories: categories)
    }

    /// Read notifications older than `days`, and unread ones older than twice that: deleted.
    func prune(days: Int, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            """
            WITH gone AS (
                DELETE FROM notifications WHERE (read_at IS NOT NULL AND created_at < \(database.ago(.seconds(86_400 * days))))
                   OR created_at < \(database.ago(.seconds(2 * 86_400 * days))) RETURNING push_id)
            SELECT count(*)::int FROM gone
            """,
            logger: database.logger)
        var pruned = 0
        for try await count in rows.decode(Int.self) { pruned = count }
        try await connection.query(
            """
            DELETE FROM pushes p WHERE p.expires_at < \(database.now())
              AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.push_id = p.id)
            """,
            logger: database.logger)
        try await connection.query(
            "DELETE FROM deliveries WHERE status <> 'queued' AND finished_at < \(database.ago(.seconds(7 * 86_400)))", logger: database.logger)
        // An erased account's items written by a push that raced its erasure; erased accounts are
        // remembered as long as an unread item is kept.
        try await connection.query(
            "DELETE FROM notifications n USING erased_accounts e WHERE n.account_id = e.account_id", logger: database.logger)
        try await connection.query(
            "DELETE FROM erased_accounts WHERE erased_at < \(database.ago(.seconds(2 * 86_400 * days)))", logger: database.logger)
        return pruned
    }
}
