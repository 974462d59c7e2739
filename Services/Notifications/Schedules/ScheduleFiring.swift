import Foundation
import Logging
import Metrics
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// Fires due schedules: each becomes a push (deduplicated per occurrence, so a firing repeated after
/// a crash is the same push) and moves to its next time, all in the job's transaction. An
/// occurrence missed while no instance ran fires once, late; older missed ones are skipped.
struct ScheduleFiring: Sendable {
    let schedules: ScheduleStore
    let pushes: PushHandlers
    let logger: Logger
    private let fired = Counter(label: "melon_push_schedules_fired_total")

    init(schedules: ScheduleStore, pushes: PushHandlers, logger: Logger) {
        self.schedules = schedules
        self.pushes = pushes
        self.logger = logger
    }

    /// One round at `now`: the schedules fired.
    func round(now: Date, on connection: PostgresConnection) async throws -> Int {
        let due = try await schedules.due(at: now, limit: 200, on: connection)
        for schedule in due {
            guard let request = schedule.request, case .success(let recurrence) = Recurrence.of(request, timeZone: schedule.timeZone) else {
                logger.error("a stored schedule no longer reads: removed", metadata: ["schedule_id": "\(schedule.id)"])
                try await schedules.advance(schedule.id, to: nil, on: connection)
                continue
            }
            let push = Notifications.Push.Send.Request(
                recipients: [request.recipient], content: request.content, dedupeKey: "schedule:\(schedule.id.uuidString.lowercased()):\(schedule.fired)")
            _ = try await pushes.fanOut(push, source: schedule.source, now: now, on: connection)
            try await schedules.advance(schedule.id, to: recurrence.next(atOrAfter: now.addingTimeInterval(0.001), from: schedule.fired + 1), on: connection)
            fired.increment()
        }
        return due.count
    }
}
