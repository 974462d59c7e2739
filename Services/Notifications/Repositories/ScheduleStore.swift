import Foundation
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// Schedules: a push request to one user and when it fires next; `(source, key)` names one.
struct ScheduleStore: Sendable {
    let database: Database

    /// Sets (or replaces) the schedule; one that will never fire is removed instead. Returns when it fires next.
    func set(_ request: Notifications.Schedule.Set.Request, source: String, account: UUID, timeZone: String, recurrence: Recurrence, now: Date,
             on connection: PostgresConnection) async throws -> Date? {
        guard let next = recurrence.next(atOrAfter: now, from: 0) else {
            try await connection.query("DELETE FROM schedules WHERE source = \(source) AND key = \(request.key)", logger: database.logger)
            return nil
        }
        try await connection.query(
            """
            INSERT INTO schedules (id, source, key, account_id, request, time_zone, fired, next_fire_at)
            VALUES (\(UUID()), \(source), \(request.key), \(account), \(JSONColumn.text(request))::jsonb, \(timeZone), \(next.index), \(next.at))
            ON CONFLICT (source, key) DO UPDATE SET id = EXCLUDED.id, account_id = EXCLUDED.account_id, request = EXCLUDED.request, time_zone = EXCLUDED.time_zone,
                fired = EXCLUDED.fired, next_fire_at = EXCLUDED.next_fire_at
            """,
            logger: database.logger)
        return next.at
    }

    func cancel(source: String, key: String, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query("DELETE FROM schedules WHERE source = \(source) AND key = \(key) RETURNING 1", logger: database.logger)
            .collect().count == 1
    }

    /// Records `revision` as the key's newest unless a newer one came first; false for a stale change,
    /// which the caller then ignores. Changes without a revision are always taken.
    func accept(revision: Int64?, source: String, key: String, account: UUID?, on connection: PostgresConnection) async throws -> Bool {
        guard let revision else { return true }
        return try await connection.query(
            """
            INSERT INTO schedule_revisions (source, key, account_id, revision)
            VALUES (\(source), \(key), coalesce(\(account), (SELECT account_id FROM schedules WHERE source = \(source) AND key = \(key))), \(revision))
            ON CONFLICT (source, key) DO UPDATE SET revision = EXCLUDED.revision, account_id = coalesce(EXCLUDED.account_id, schedule_revisions.account_id)
            WHERE schedule_revisions.revision <= EXCLUDED.revision
            RETURNING 1
            """,
            logger: database.logger
        ).collect().count == 1
    }

    /// When the schedule fires next, if it is set.
    func nextFire(source: String, key: String, on connection: PostgresConnection) async throws -> Date? {
        let rows = try await connection.query("SELECT next_fire_at FROM schedules WHERE source = \(source) AND key = \(key)", logger: database.logger)
        for try await next in rows.decode(Date.self) { return next }
        return nil
    }

    /// Schedules due at `now`, locked for this transaction (other instances skip them).
    func due(at now: Date, limit: Int, on connection: PostgresConnection) async throws -> [DueSchedule] {
        let rows = try await connection.query(
            """
            SELECT id, source, request::text, time_zone, fired FROM schedules
            WHERE next_fire_at <= \(now) ORDER BY next_fire_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
            """,
            logger: database.logger)
        var due: [DueSchedule] = []
        for try await (id, source, request, zone, fired) in rows.decode((UUID, String, String, String, Int).self) {
            due.append(DueSchedule(id: id, source: source, request: JSONColumn.value(Notifications.Schedule.Set.Request.self, request), timeZone: zone, fired: fired))
        }
        return due
    }

    /// After a firing: the next time, or the schedule removed when there is none.
    func advance(_ id: UUID, to next: (index: Int, at: Date)?, on connection: PostgresConnection) async throws {
        if let next {
            try await connection.query("UPDATE schedules SET fired = \(next.index), next_fire_at = \(next.at) WHERE id = \(id)", logger: database.logger)
        } else {
            try await connection.query("DELETE FROM schedules WHERE id = \(id)", logger: database.logger)
        }
    }
}

struct DueSchedule: Sendable {
    let id: UUID
    let source: String
    /// Nil when the stored request no longer reads (it is then removed).
    let request: Notifications.Schedule.Set.Request?
    let timeZone: String
    /// The index of the occurrence due now.
    let fired: Int
}
