import PostgresNIO
import ServiceLifecycle

/// PostgreSQL NOTIFY within the service's schema: a notice queued in a transaction reaches the
/// listeners when, and only if, that transaction commits, so a listener acts on committed changes
/// alone. Delivery is best effort (a listener that is reconnecting misses what was sent meanwhile),
/// so a listener pairs it with a way to catch up (a poll, a full read).
///
/// A service registers what it does with a channel's notices (`onNotice`, `wakeUp`) while it is
/// built; its process then runs `noticeListener`, which holds one pooled connection LISTENing on all
/// of them.
extension Database {
    /// Queues `payload` (at most 8,000 bytes) on the schema's channel `name`, sent at commit.
    public func notify(_ name: String, _ payload: String = "", on connection: PostgresConnection) async throws {
        try await connection.query("SELECT pg_notify(\(channel(name)), \(payload))", logger: logger)
    }

    /// Runs `handler` with the payload of each notice on channel `name`, once `noticeListener` runs.
    public func onNotice(_ name: String, _ handler: @escaping @Sendable (String) async -> Void) {
        noticeHandlers.withLock { $0[name, default: []].append(handler) }
    }

    /// A wake-up signalled by each notice on channel `name` (a queue's producers notify it at commit).
    public func wakeUp(_ name: String) -> WakeUp {
        let wakeUp = WakeUp()
        onNotice(name) { _ in wakeUp.signal() }
        return wakeUp
    }

    /// Listens for the registered channels' notices until shutdown; nothing when none is registered.
    public var noticeListener: any Service { NoticeListener(database: self) }

    fileprivate func channel(_ name: String) -> String { "\(schema)_\(name)" }
}

private struct NoticeListener: Service {
    let database: Database

    func run() async throws {
        let handlers = database.noticeHandlers.withLock { $0 }
        guard !handlers.isEmpty else { return }
        let names = handlers.keys.sorted()
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await database.client.withConnection { connection in
                        try await listen(connection, to: names[...], listening: []) { streams in
                            try await withThrowingTaskGroup(of: Void.self) { group in
                                for (name, notices) in zip(names, streams) {
                                    group.addTask {
                                        for try await notice in notices {
                                            for handler in handlers[name] ?? [] { await handler(notice.payload) }
                                        }
                                    }
                                }
                                try await group.waitForAll()
                            }
                        }
                    }
                } catch {
                    if Task.isCancelled { return }
                    database.logger.warning("listening for notices failed", metadata: ["error": "\(String(reflecting: error))"])
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// LISTENs on each of `names` in turn on `connection`, then runs `body` with their notices.
    private func listen(
        _ connection: PostgresConnection, to names: ArraySlice<String>, listening: [PostgresNotificationSequence],
        body: @escaping @Sendable ([PostgresNotificationSequence]) async throws -> Void
    ) async throws {
        guard let name = names.first else { return try await body(listening) }
        try await connection.listen(on: database.channel(name)) { notices in
            try await listen(connection, to: names.dropFirst(), listening: listening + [notices], body: body)
        }
    }
}
