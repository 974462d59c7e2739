import Envelope
import Foundation
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// Pushes, their inbox items and their deliveries: one row per (push, device), consumed by the
/// delivery loops of every instance through `LeasedQueue` (row locks and leases), so a crash
/// mid-fan-out leaves the rest to be claimed again and each delivery keeps its id (the apns-id).
struct PushQueue: Sendable {
    let database: Database

    /// The channel queued deliveries are announced on at commit, waking the delivery loop.
    static let queuedChannel = "deliveries"

    /// The push stored, in each recipient's inbox unless it is silent, and queued to each of their
    /// devices of the app (but not for recipients who muted the event type); `holds` delays some
    /// recipients' deliveries (quiet hours). A dedupe key the source used before answers with that push.
    func fanOut(_ request: Notifications.Push.Send.Request, source: String, recipients: [UUID], expiresAt: Date,
                holds: [UUID: Date], on connection: PostgresConnection) async throws -> Notifications.Push.Send.Response {
        let content = request.content
        let id = UUID()
        let inserted = try await connection.query(
            """
            INSERT INTO pushes (id, source, dedupe_key, content, expires_at, created_at)
            VALUES (\(id), \(source), \(request.dedupeKey), \(JSONColumn.text(content))::jsonb, \(expiresAt), \(database.now()))
            ON CONFLICT (source, dedupe_key) DO NOTHING RETURNING 1
            """,
            logger: database.logger
        ).collect().count
        guard inserted == 1 else { return try await existing(source: source, dedupeKey: request.dedupeKey, on: connection) }
        var notifications = 0
        if !content.isSilent {
            notifications = try await connection.query(
                """
                INSERT INTO notifications (id, push_id, account_id, app, event_type, category, alert, data, created_at)
                SELECT gen_random_uuid(), \(id), r, \(content.app.rawValue), \(content.eventType), \(content.category),
                       \(JSONColumn.text(content.alert))::jsonb, \(JSONColumn.text(content.data))::jsonb, \(database.now())
                FROM unnest(\(recipients)::uuid[]) AS r
                ON CONFLICT DO NOTHING RETURNING 1
                """,
                logger: database.logger
            ).collect().count
        }
        let held = Array(holds)
        let deliveries = try await connection.query(
            """
            INSERT INTO deliveries (id, push_id, notification_id, device_id, app, next_attempt_at, created_at)
            SELECT gen_random_uuid(), \(id), n.id, d.id, d.app, coalesce(to_timestamp(h.until), \(database.now())), \(database.now())
            FROM unnest(\(recipients)::uuid[]) AS r(account_id)
            JOIN devices d ON d.account_id = r.account_id AND d.app = \(content.app.rawValue)
            LEFT JOIN notifications n ON n.push_id = \(id) AND n.account_id = r.account_id
            LEFT JOIN unnest(\(held.map(\.key))::uuid[], \(held.map { $0.value.timeIntervalSince1970 })::float8[]) AS h(account_id, until)
                ON h.account_id = r.account_id
            WHERE NOT EXISTS (
                SELECT 1 FROM mutes m WHERE m.account_id = r.account_id AND m.app = d.app AND m.event_type = \(content.eventType))
            ON CONFLICT DO NOTHING RETURNING 1
            """,
            logger: database.logger
        ).collect().count
        if deliveries > 0 { try await database.notify(Self.queuedChannel, on: connection) }
        return .init(pushID: id.uuidString.lowercased(), notifications: notifications, deliveries: deliveries, duplicate: false)
    }

    /// Those of `accounts` erased here.
    func erased(_ accounts: [UUID], on connection: PostgresConnection) async throws -> Set<UUID> {
        try await connection.query("SELECT account_id FROM erased_accounts WHERE account_id = ANY(\(accounts))", logger: database.logger)
            .decode(UUID.self).reduce(into: Set<UUID>()) { $0.insert($1) }
    }

    private func existing(source: String, dedupeKey: String?, on connection: PostgresConnection) async throws -> Notifications.Push.Send.Response {
        let rows = try await connection.query(
            """
            SELECT p.id, (SELECT count(*)::int FROM notifications n WHERE n.push_id = p.id), (SELECT count(*)::int FROM deliveries d WHERE d.push_id = p.id)
            FROM pushes p WHERE p.source = \(source) AND p.dedupe_key = \(dedupeKey)
            """,
            logger: database.logger)
        for try await (id, notifications, deliveries) in rows.decode((UUID, Int, Int).self) {
            return .init(pushID: id.uuidString.lowercased(), notifications: notifications, deliveries: deliveries, duplicate: true)
        }
        throw OperationError(.internal, "a push's dedupe key conflicted but no push has it")
    }

    /// The quiet hours of those of `accounts` who set any, with their time zone (the newest device's when they gave none).
    func quietWindows(_ accounts: [UUID], on connection: PostgresConnection) async throws -> [UUID: QuietWindow] {
        let rows = try await connection.query(
            """
            SELECT q.account_id, q.start_minute, q.end_minute, coalesce(q.time_zone,
                (SELECT time_zone FROM devices d WHERE d.account_id = q.account_id AND d.time_zone IS NOT NULL ORDER BY registered_at DESC LIMIT 1), 'UTC')
            FROM quiet_hours q WHERE q.account_id = ANY(\(accounts))
            """,
            logger: database.logger)
        var windows: [UUID: QuietWindow] = [:]
        for try await (account, start, end, zone) in rows.decode((UUID, Int, Int, String).self) {
            windows[account] = QuietWindow(start: start, end: end, timeZone: TimeZone(identifier: zone) ?? TimeZone(identifier: "UTC")!)
        }
        return windows
    }

    /// Claims due deliveries of apps not on hold to devices of `environment` (one APNs host), with what sending them needs.
    func claim(limit: Int, lease: Duration, environment: Notifications.Devices.Environment) async throws -> [ClaimedDelivery] {
        let queue = LeasedQueue(
            table: "deliveries",
            pending: """
                status = 'queued' AND NOT EXISTS (SELECT 1 FROM app_holds h WHERE h.app = deliveries.app AND h.until > clock.now)
                AND EXISTS (SELECT 1 FROM devices v WHERE v.id = deliveries.device_id AND v.environment = '\(environment.rawValue)')
                """,
            lease: lease, batchSize: limit)
        let claimed = try await queue.claim("id, attempts", in: database).map { try $0.decode((UUID, Int).self) }
        guard !claimed.isEmpty else { return [] }
        let attempts = Dictionary(uniqueKeysWithValues: claimed)
        return try await database.transaction { connection in
            let rows = try await connection.query(
                """
                SELECT d.id, d.app, p.content::text, p.expires_at, (extract(epoch FROM \(database.now()) - p.created_at) * 1000)::bigint,
                       d.notification_id, v.account_id, v.id, v.token, v.environment, v.registered_at,
                       (SELECT coalesce(jsonb_object_agg(category, c), '{}')::text FROM (
                           SELECT category, count(*) AS c FROM notifications u
                           WHERE u.account_id = v.account_id AND u.app = d.app AND u.read_at IS NULL GROUP BY category) t)
                FROM deliveries d JOIN pushes p ON p.id = d.push_id JOIN devices v ON v.id = d.device_id
                WHERE d.id = ANY(\(claimed.map(\.0)))
                """,
                logger: database.logger)
            var deliveries: [ClaimedDelivery] = []
            for try await (id, app, content, expires, age, notification, account, device, token, environment, registered, tabs) in rows.decode(
                (UUID, String, String, Date, Int64, UUID?, UUID, UUID, String, String, Date, String).self)
            {
                guard let content = JSONColumn.value(Notifications.Content.self, content) else { continue }
                deliveries.append(ClaimedDelivery(
                    id: id, attempts: attempts[id] ?? 1, app: app, content: content, expiresAt: expires, age: .milliseconds(age),
                    notification: notification, account: account, device: device, token: token,
                    environment: .init(rawValue: environment) ?? .production, registeredAt: registered,
                    unread: JSONColumn.value([String: Int].self, tabs) ?? [:]))
            }
            return deliveries
        }
    }

    /// Records what became of one attempt, in one statement (PostgreSQL runs every data-modifying
    /// part of a WITH, read or not). The update names the attempt it records, so a consumer whose
    /// lease ran out changes nothing; false then.
    @discardableResult
    func record(_ outcome: DeliveryOutcome, of delivery: ClaimedDelivery) async throws -> Bool {
        let (status, reason, delay): (String, String?, Duration) =
            switch outcome {
            case .sent: ("sent", nil, .zero)
            case .failed(let reason), .pruned(let reason): ("failed", reason, .zero)
            case .retry(let delay, let reason): ("queued", reason, delay)
            }
        let sent = outcome == .sent
        let pruned = if case .pruned = outcome { true } else { false }
        return try await database.transaction { connection in
            let rows = try await connection.query(
                """
                WITH recorded AS (
                    UPDATE deliveries SET status = \(status), reason = \(reason),
                        next_attempt_at = \(database.later(delay)),
                        finished_at = CASE WHEN \(status) <> 'queued' THEN \(database.now()) END
                    WHERE id = \(delivery.id) AND attempts = \(delivery.attempts) AND status = 'queued' RETURNING device_id),
                touched AS (UPDATE devices SET last_pushed_at = \(database.now()) WHERE \(sent) AND id IN (SELECT device_id FROM recorded)),
                removed AS (DELETE FROM devices WHERE \(pruned) AND id IN (SELECT device_id FROM recorded))
                SELECT count(*)::int FROM recorded
                """,
                logger: database.logger)
            var recorded = 0
            for try await count in rows.decode(Int.self) { recorded = count }
            return recorded == 1
        }
    }

    /// Puts an app's deliveries on hold until `until`.
    func hold(app: String, until: Date, reason: String) async throws {
        try await database.transaction { connection in
            try await connection.query(
                """
                INSERT INTO app_holds (app, until, reason) VALUES (\(app), \(until), \(reason))
                ON CONFLICT (app) DO UPDATE SET until = EXCLUDED.until, reason = EXCLUDED.reason
                """,
                logger: database.logger)
        }
    }

    /// Queued deliveries and the age of the oldest, for the gauges.
    func backlog() async throws -> (queued: Int, oldest: Duration?) {
        try await database.transaction { connection in
            let rows = try await connection.query(
                "SELECT count(*)::int, (extract(epoch FROM \(database.now()) - min(created_at)) * 1000)::bigint FROM deliveries WHERE status = 'queued'",
                logger: database.logger)
            for try await (count, oldest) in rows.decode((Int, Int64?).self) { return (count, oldest.map { .milliseconds($0) }) }
            return (0, nil)
        }
    }
}

/// A delivery claimed for one attempt.
struct ClaimedDelivery: Sendable {
    let id: UUID
    let attempts: Int
    let app: String
    let content: Notifications.Content
    let expiresAt: Date
    /// Since the push was accepted.
    let age: Duration
    /// The inbox item; nil for a silent push, which makes none.
    let notification: UUID?
    let account: UUID
    let device: UUID
    let token: String
    let environment: Notifications.Devices.Environment
    let registeredAt: Date
    /// The recipient's unread count per category in the app, now.
    let unread: [String: Int]
}

/// What one attempt means for its delivery.
enum DeliveryOutcome: Sendable, Equatable {
    case sent
    case failed(reason: String)
    /// Failed, and the device is removed (its token is gone).
    case pruned(reason: String)
    case retry(after: Duration, reason: String)
}
