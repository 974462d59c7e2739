import Envelope
import Foundation
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// The `devices` table: one row per push token.
struct DeviceStore: Sendable {
    let database: Database
    typealias Device = Notifications.Devices.Device

    private static let columns = "id, platform, app, token, environment, locale, time_zone, app_version, registered_at, last_pushed_at"

    /// The caller's device with this token, registered in `session`. A token another account holds
    /// leaves that account (with the pushes queued to it); beyond `limit` devices the oldest go.
    func register(_ request: Notifications.Devices.Register.Request, app: Notifications.App, account: UUID, session: UUID?, limit: Int,
                  on connection: PostgresConnection) async throws -> Device {
        let token = request.token.lowercased()
        // Twice at most: another account's registration of the token may commit between the two statements.
        for _ in 0..<2 {
            try await connection.query(
                "DELETE FROM devices WHERE platform = \(request.platform.rawValue) AND token = \(token) AND account_id <> \(account)",
                logger: database.logger)
            let rows = try await connection.query(
                """
                INSERT INTO devices (id, account_id, session_id, platform, app, token, environment, locale, time_zone, app_version, registered_at)
                VALUES (\(UUID()), \(account), \(session), \(request.platform.rawValue), \(app.rawValue), \(token), \(request.environment.rawValue),
                        \(request.locale), \(request.timeZone), \(request.appVersion), \(database.now()))
                ON CONFLICT (platform, token) DO UPDATE SET session_id = EXCLUDED.session_id, app = EXCLUDED.app, environment = EXCLUDED.environment,
                    locale = EXCLUDED.locale, time_zone = EXCLUDED.time_zone, app_version = EXCLUDED.app_version, registered_at = EXCLUDED.registered_at
                WHERE devices.account_id = EXCLUDED.account_id
                RETURNING \(unescaped: Self.columns)
                """,
                logger: database.logger)
            guard let device = try await Self.devices(rows).first else { continue }
            try await connection.query(
                """
                DELETE FROM devices WHERE id IN (
                    SELECT id FROM devices WHERE account_id = \(account) ORDER BY registered_at DESC, id OFFSET \(limit))
                """,
                logger: database.logger)
            return device
        }
        throw OperationError(.conflict, "data.token: this token is being registered by another request; try again")
    }

    func list(account: UUID) async throws -> [Device] {
        try await database.transaction { connection in
            try await Self.devices(connection.query(
                "SELECT \(unescaped: Self.columns) FROM devices WHERE account_id = \(account) ORDER BY registered_at DESC, id", logger: database.logger))
        }
    }

    func delete(id: UUID, account: UUID) async throws -> Bool {
        try await database.transaction { connection in
            try await connection.query("DELETE FROM devices WHERE id = \(id) AND account_id = \(account) RETURNING 1", logger: database.logger)
                .collect().count == 1
        }
    }

    /// Removes the devices registered in sessions that ended.
    func endSessions(_ sessions: [UUID], account: UUID) async throws -> Int {
        try await database.transaction { connection in
            try await connection.query(
                "DELETE FROM devices WHERE account_id = \(account) AND session_id = ANY(\(sessions)) RETURNING 1", logger: database.logger
            ).collect().count
        }
    }

    /// The time zone of the account's newest device that gave one.
    func timeZone(account: UUID, on connection: PostgresConnection) async throws -> String? {
        let rows = try await connection.query(
            """
            SELECT coalesce(
                (SELECT time_zone FROM quiet_hours WHERE account_id = \(account)),
                (SELECT time_zone FROM devices WHERE account_id = \(account) AND time_zone IS NOT NULL ORDER BY registered_at DESC LIMIT 1))
            """,
            logger: database.logger)
        for try await zone in rows.decode(String?.self) { return zone }
        return nil
    }

    private static func devices(_ rows: PostgresRowSequence) async throws -> [Device] {
        var devices: [Device] = []
        for try await (id, platform, app, token, environment, locale, zone, version, registered, pushed) in rows.decode(
            (UUID, String, String, String, String, String?, String?, String?, Date, Date?).self)
        {
            devices.append(Device(
                id: id.uuidString.lowercased(), platform: .init(rawValue: platform) ?? .ios, app: .init(rawValue: app) ?? .melon,
                tokenEnding: String(token.suffix(8)), environment: .init(rawValue: environment) ?? .production, locale: locale, timeZone: zone,
                appVersion: version, registeredAt: registered, lastPushedAt: pushed))
        }
        return devices
    }
}
