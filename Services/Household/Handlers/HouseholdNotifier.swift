import Envelope
import Foundation
import HouseholdContract
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// Tells a household's members of what happened, through the outbox (`notifications.push.send.v1`),
/// in the transaction that made it happen: a push goes out only for what was recorded, and until
/// notifications has it. Each push carries the tab it counts in and the ids the app opens the screen
/// with; no names of people, which notifications does not need.
struct HouseholdNotifier: Sendable {
    let database: Database

    /// What the app needs to open the screen: the household, the kind of thing and its id.
    struct Target: Sendable {
        let household: UUID
        /// `grocery-item`, `grocery-list`, `chore`, `bill`, `post`.
        let resource: String
        let id: UUID
    }

    /// Pushes `event` to the members of the target's household who belong now, but `actor` (and
    /// only to `only` when given), and, when `listed`, lists it in the household's activity feed;
    /// returns how many were told.
    @discardableResult
    func tell(_ event: Notifications.EventType, _ target: Target, except actor: UUID?, only: [UUID]? = nil, listed: Bool = true, title: String,
              body: String, on connection: PostgresConnection) async throws -> Int {
        if listed {
            try await connection.query(
                """
                INSERT INTO activity (household_id, event_type, category, resource, resource_id, member_id, title, body, at)
                VALUES (\(target.household), \(event.name), \(event.category), \(target.resource), \(target.id), \(actor), \(title), \(body),
                        \(database.now()))
                """,
                logger: database.logger)
        }
        let recipients = try await connection.query(
            """
            SELECT account_id FROM members
            WHERE household_id = \(target.household) AND left_at IS NULL AND account_id IS NOT NULL AND id IS DISTINCT FROM \(actor)
              AND (\(only)::uuid[] IS NULL OR id = ANY(\(only)))
            ORDER BY seq
            """,
            logger: database.logger
        ).decode(UUID.self).reduce(into: [String]()) { $0.append(HouseholdStore.text($1)) }
        guard !recipients.isEmpty else { return 0 }
        let content = Notifications.Content(
            app: event.app, eventType: event.name, category: event.category, alert: .init(title: title, body: body),
            data: ["householdId": HouseholdStore.text(target.household), "resource": target.resource, "id": HouseholdStore.text(target.id)],
            threadID: "household-\(HouseholdStore.text(target.household))")
        try await database.enqueue(Notifications.Push.Send.self, .init(recipients: recipients, content: content), on: connection)
        return recipients.count
    }

    /// The household's feed, the newest first, before `before`.
    func activity(of household: UUID, category: String?, limit: Int, before: Int64?, on connection: PostgresConnection) async throws
        -> [(activity: Household.Activity, seq: Int64)]
    {
        let rows = try await connection.query(
            """
            SELECT event_type, category, resource, resource_id, member_id, title, body, at, seq FROM activity
            WHERE household_id = \(household) AND seq < \(before ?? Int64.max) AND (\(category)::text IS NULL OR category = \(category))
            ORDER BY seq DESC LIMIT \(limit)
            """,
            logger: database.logger)
        var page: [(activity: Household.Activity, seq: Int64)] = []
        for try await (type, category, resource, id, member, title, body, at, seq) in rows.decode((String, String, String, UUID, UUID?, String, String, Date, Int64).self) {
            page.append((Household.Activity(
                eventType: type, category: category, resource: resource, resourceId: HouseholdStore.text(id), memberId: member.map(HouseholdStore.text),
                title: title, body: body, at: at), seq))
        }
        return page
    }

    /// Forgets activity older than a year; returns how many entries.
    func pruneActivity(on connection: PostgresConnection) async throws -> Int {
        try await connection.query("DELETE FROM activity WHERE at < \(database.ago(.seconds(365 * 86_400))) RETURNING 1", logger: database.logger)
            .collect().count
    }
}
