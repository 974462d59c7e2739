import Bus
import Contracts
import Envelope
import Foundation
import NotificationsContract
import PostgresSupport

/// `notifications.inbox.*` and `notifications.preferences.*`: the caller's own notifications and choices.
struct InboxHandlers: Sendable {
    let inbox: InboxStore
    let preferences: PreferenceStore

    @Sendable
    func list(_ request: Notifications.Inbox.List.Request, _ context: RequestContext) async throws -> Notifications.Inbox.List.Response {
        let caller = try Caller(context)
        let limit = try request.page.checked()
        let page = try await inbox.list(account: caller.account, request, limit: limit)
        return .init(notifications: page.items, nextAfter: page.next)
    }

    @Sendable
    func markRead(_ request: Notifications.Inbox.MarkRead.Request, _ context: RequestContext) async throws -> Notifications.Inbox.MarkRead.Response {
        let caller = try Caller(context)
        let chosen = [request.ids != nil, request.category != nil, request.all == true].filter { $0 }.count
        guard chosen == 1 else { throw OperationError.invalid(field: "data", "give exactly one of ids, category and all: true") }
        // An id that is not a UUID is nobody's notification: it marks nothing.
        let ids = request.ids.map { $0.compactMap { UUID(uuidString: $0) } }
        let marked = try await inbox.markRead(account: caller.account, app: request.app, ids: ids, category: request.category)
        return .init(marked: marked, badges: try await inbox.badges(account: caller.account, app: request.app))
    }

    @Sendable
    func badges(_ request: Notifications.Inbox.Badges.Request, _ context: RequestContext) async throws -> Notifications.Inbox.Badges.Response {
        try await inbox.badges(account: try Caller(context).account, app: request.app)
    }

    @Sendable
    func preferences(_ request: Empty, _ context: RequestContext) async throws -> Notifications.Preferences.Settings {
        try await preferences.get(account: try Caller(context).account)
    }

    @Sendable
    func setPreferences(_ request: Notifications.Preferences.Settings, _ context: RequestContext) async throws -> Notifications.Preferences.Settings {
        let caller = try Caller(context)
        var quiet: (start: Int, end: Int, zone: String?)?
        if let hours = request.quietHours {
            var validation = Validation()
            let start = QuietWindow.minutes(hours.start), end = QuietWindow.minutes(hours.end)
            validation.check(start != nil, "data.quietHours.start", "must be a time of day as HH:mm")
            validation.check(end != nil, "data.quietHours.end", "must be a time of day as HH:mm")
            validation.check(start == nil || start != end, "data.quietHours.end", "must differ from start")
            if let zone = hours.timeZone { validation.check(TimeZone(identifier: zone) != nil, "data.quietHours.timeZone", "is not a time zone this server knows") }
            try validation.finish()
            quiet = (start!, end!, hours.timeZone)
        }
        return try await preferences.put(account: caller.account, muted: Array(Set(request.muted)), quiet: quiet)
    }
}

/// `notifications.account.erase.v1`: everything of a deleted account, in one transaction. The
/// account is remembered as erased, so that pushes and schedules reaching it later are dropped.
struct AccountErasureHandler: Sendable {
    let database: Database

    @Sendable
    func erase(_ request: Notifications.Account.Erase.Request, _ context: RequestContext) async throws -> Notifications.Account.Erase.Response {
        guard let account = UUID(uuidString: request.account) else { throw OperationError.invalid(field: "data.account", "must be an account id") }
        let erased = try await database.transaction { connection in
            let rows = try await connection.query(
                """
                WITH remembered AS (
                        INSERT INTO erased_accounts (account_id, erased_at) VALUES (\(account), \(database.now()))
                        ON CONFLICT (account_id) DO UPDATE SET erased_at = EXCLUDED.erased_at),
                     devices_gone AS (DELETE FROM devices WHERE account_id = \(account) RETURNING 1),
                     inbox_gone AS (DELETE FROM notifications WHERE account_id = \(account) RETURNING push_id),
                     schedules_gone AS (DELETE FROM schedules WHERE account_id = \(account) RETURNING 1),
                     revisions_gone AS (DELETE FROM schedule_revisions WHERE account_id = \(account) RETURNING 1),
                     mutes_gone AS (DELETE FROM mutes WHERE account_id = \(account) RETURNING 1),
                     quiet_gone AS (DELETE FROM quiet_hours WHERE account_id = \(account) RETURNING 1),
                     pushes_gone AS (
                        DELETE FROM pushes p WHERE p.id IN (SELECT push_id FROM inbox_gone)
                          AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.push_id = p.id AND n.account_id <> \(account)) RETURNING 1)
                SELECT (SELECT count(*)::int FROM devices_gone), (SELECT count(*)::int FROM inbox_gone), (SELECT count(*)::int FROM schedules_gone),
                       (SELECT count(*)::int FROM mutes_gone) + (SELECT count(*)::int FROM quiet_gone) + (SELECT count(*)::int FROM pushes_gone)
                       + (SELECT count(*)::int FROM revisions_gone)
                """,
                logger: database.logger)
            for try await (devices, notifications, schedules, _) in rows.decode((Int, Int, Int, Int).self) {
                return Notifications.Account.Erase.Response(devices: devices, notifications: notifications, schedules: schedules)
            }
            return Notifications.Account.Erase.Response(devices: 0, notifications: 0, schedules: 0)
        }
        context.logger.notice("a deleted account's notifications erased", metadata: [
            "account": "\(request.account)", "devices": "\(erased.devices)", "notifications": "\(erased.notifications)", "schedules": "\(erased.schedules)",
        ])
        return erased
    }
}
