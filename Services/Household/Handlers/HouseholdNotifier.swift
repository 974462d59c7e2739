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
    /// only to `only` when given); returns how many were told.
    @discardableResult
    func tell(_ event: Notifications.EventType, _ target: Target, except actor: UUID?, only: [UUID]? = nil, title: String, body: String,
              on connection: PostgresConnection) async throws -> Int {
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
}
