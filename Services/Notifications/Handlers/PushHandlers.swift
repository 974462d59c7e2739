import Bus
import Contracts
import Envelope
import Foundation
import Metrics
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// `notifications.push.send.v1` and `notifications.schedule.*`: what other services ask for.
struct PushHandlers: Sendable {
    let database: Database
    let queue: PushQueue
    let schedules: ScheduleStore
    let devices: DeviceStore
    let defaultLifetime: Duration
    let now: @Sendable () -> Date
    private let queued = Counter(label: "melon_push_queued_total")
    /// Pushes and schedules addressed to accounts erased here, dropped.
    private let droppedErased = Counter(label: "melon_push_dropped_erased_accounts_total")

    init(database: Database, defaultLifetime: Duration, now: @escaping @Sendable () -> Date) {
        self.database = database
        queue = PushQueue(database: database)
        schedules = ScheduleStore(database: database)
        devices = DeviceStore(database: database)
        self.defaultLifetime = defaultLifetime
        self.now = now
    }

    /// Outside the transaction: the request checked as the schema says, and what the payload must respect.
    @Sendable
    func prepareSend(_ request: Notifications.Push.Send.Request, _ context: RequestContext) async throws -> Notifications.Push.Send.Request {
        try Self.check(request.content, at: "data.content")
        return request
    }

    /// In the transaction that records the reply: stored, in the inboxes, queued to the devices.
    @Sendable
    func send(_ request: Notifications.Push.Send.Request, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> Notifications.Push.Send.Response
    {
        let response = try await fanOut(request, source: context.attributes.source, now: now(), on: connection)
        context.logger.info("push queued", metadata: [
            "push_id": "\(response.pushID)", "event_type": "\(request.content.eventType)", "notifications": "\(response.notifications)",
            "deliveries": "\(response.deliveries)", "duplicate": "\(response.duplicate)",
        ])
        return response
    }

    /// The push in each recipient's inbox and queued to their devices; non-urgent deliveries wait
    /// out the recipient's quiet hours.
    func fanOut(_ request: Notifications.Push.Send.Request, source: String, now: Date, on connection: PostgresConnection) async throws
        -> Notifications.Push.Send.Response
    {
        var recipients = request.recipients.compactMap { UUID(uuidString: $0) }
        let erased = try await queue.erased(recipients, on: connection)
        if !erased.isEmpty {
            droppedErased.increment(by: erased.count)
            recipients.removeAll(where: erased.contains)
        }
        var holds: [UUID: Date] = [:]
        if !(request.content.interruption?.isUrgent ?? false) {
            for (account, window) in try await queue.quietWindows(recipients, on: connection) {
                let release = window.release(now)
                if release > now { holds[account] = release }
            }
        }
        let expiresAt = request.content.expiresAt ?? now.adding(defaultLifetime)
        let response = try await queue.fanOut(request, source: source, recipients: recipients, expiresAt: expiresAt, holds: holds, on: connection)
        if !response.duplicate { queued.increment(by: response.deliveries) }
        return response
    }

    @Sendable
    func setSchedule(_ request: Notifications.Schedule.Set.Request, _ context: RequestContext) async throws -> Notifications.Schedule.Set.Response {
        try Self.check(request.content, at: "data.content")
        guard let account = UUID(uuidString: request.recipient) else { throw OperationError.invalid(field: "data.recipient", "must be an account id") }
        let source = context.attributes.source
        let next = try await database.transaction { connection -> Date? in
            guard try await queue.erased([account], on: connection).isEmpty else {
                droppedErased.increment()
                return nil
            }
            guard try await schedules.accept(revision: request.revision, source: source, key: request.key, account: account, on: connection) else {
                return try await schedules.nextFire(source: source, key: request.key, on: connection)
            }
            var named = request.timeZone
            if named == nil { named = try await devices.timeZone(account: account, on: connection) }
            let zone = named ?? "UTC"
            let recurrence: Recurrence
            switch Recurrence.of(request, timeZone: zone) {
            case .success(let value): recurrence = value
            case .failure(let problem): throw OperationError.invalid(field: problem.field, problem.message)
            }
            return try await schedules.set(request, source: source, account: account, timeZone: zone, recurrence: recurrence, now: now(), on: connection)
        }
        return .init(key: request.key, nextAt: next)
    }

    @Sendable
    func cancelSchedule(_ request: Notifications.Schedule.Cancel.Request, _ context: RequestContext) async throws -> Notifications.Schedule.Cancel.Response {
        let source = context.attributes.source
        return .init(cancelled: try await database.transaction { connection in
            guard try await schedules.accept(revision: request.revision, source: source, key: request.key, account: nil, on: connection) else { return false }
            return try await schedules.cancel(source: source, key: request.key, on: connection)
        })
    }

    /// What the schema cannot say about a push's content: a silent push asks for `contentAvailable`,
    /// the body's size in bytes, and the payload as a device gets it (with a five-digit badge and its
    /// category's count) fits APNs' limit, or its body may be shortened to fit.
    static func check(_ content: Notifications.Content, at path: String) throws(OperationError) {
        var validation = Validation()
        validation.check(!content.isSilent || content.contentAvailable == true, "\(path).alert", "is needed unless contentAvailable is true (a silent push)")
        let body = content.alert?.body?.utf8.count ?? 0
        let bodyBytes = Notifications.Alert.bodyBytes
        validation.check(body <= bodyBytes, "\(path).alert.body", "must be at most \(bodyBytes.grouped) bytes of UTF-8 (it is \(body.grouped))")
        try validation.finish()
        do {
            _ = try APNsRequest(
                deviceToken: "00", bundleID: "app", payload: PushPayload.build(content, notification: UUID(), unread: [content.category: 99_999]),
                expiration: nil, collapseID: content.collapseKey, apnsID: UUID(), truncatingBody: content.truncateBody == true)
        } catch {
            throw OperationError.invalid(field: content.alert?.body == nil ? path : "\(path).alert.body", error.message)
        }
    }
}

extension Notifications.Interruption {
    /// Time-sensitive and critical pushes are not held in quiet hours.
    var isUrgent: Bool { self == .timeSensitive || self == .critical }
}
