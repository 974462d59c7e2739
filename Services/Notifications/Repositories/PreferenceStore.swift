import Foundation
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// Muted event types and quiet hours.
struct PreferenceStore: Sendable {
    let database: Database
    typealias Settings = Notifications.Preferences.Settings

    func get(account: UUID) async throws -> Settings {
        try await database.transaction { connection in try await get(account: account, on: connection) }
    }

    func get(account: UUID, on connection: PostgresConnection) async throws -> Settings {
        var settings = Settings(muted: [])
        let mutes = try await connection.query(
            "SELECT app, event_type FROM mutes WHERE account_id = \(account) ORDER BY app, event_type", logger: database.logger)
        for try await (app, type) in mutes.decode((String, String).self) {
            if let app = Notifications.App(rawValue: app) { settings.muted.append(.init(app: app, eventType: type)) }
        }
        let quiet = try await connection.query(
            "SELECT start_minute, end_minute, time_zone FROM quiet_hours WHERE account_id = \(account)", logger: database.logger)
        for try await (start, end, zone) in quiet.decode((Int, Int, String?).self) {
            settings.quietHours = .init(start: QuietWindow.text(start), end: QuietWindow.text(end), timeZone: zone)
        }
        return settings
    }

    func put(account: UUID, muted: [Notifications.Preferences.Mute], quiet: (start: Int, end: Int, zone: String?)?) async throws -> Settings {
        try await database.transaction { connection in
            try await connection.query("DELETE FROM mutes WHERE account_id = \(account)", logger: database.logger)
            if !muted.isEmpty {
                try await connection.query(
                    """
                    INSERT INTO mutes (account_id, app, event_type)
                    SELECT \(account), a, t FROM unnest(\(muted.map(\.app.rawValue))::text[], \(muted.map(\.eventType))::text[]) AS m(a, t)
                    ON CONFLICT DO NOTHING
                    """,
                    logger: database.logger)
            }
            if let quiet {
                try await connection.query(
                    """
                    INSERT INTO quiet_hours (account_id, start_minute, end_minute, time_zone) VALUES (\(account), \(quiet.start), \(quiet.end), \(quiet.zone))
                    ON CONFLICT (account_id) DO UPDATE SET start_minute = EXCLUDED.start_minute, end_minute = EXCLUDED.end_minute, time_zone = EXCLUDED.time_zone
                    """,
                    logger: database.logger)
            } else {
                try await connection.query("DELETE FROM quiet_hours WHERE account_id = \(account)", logger: database.logger)
            }
            return try await get(account: account, on: connection)
        }
    }
}
