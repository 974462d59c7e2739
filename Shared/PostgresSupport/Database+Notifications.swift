import PostgresNIO

/// PostgreSQL NOTIFY within the service's schema: a notification queued in a transaction reaches
/// the listeners when, and only if, that transaction commits, so a listener acts on committed
/// changes alone. Delivery is best effort (a listener that is reconnecting misses what was sent
/// meanwhile), so a listener pairs it with a way to catch up.
extension Database {
    /// Queues `payload` (at most 8,000 bytes) on the schema's channel `name`, sent at commit.
    public func notify(_ name: String, _ payload: String, on connection: PostgresConnection) async throws {
        try await connection.query("SELECT pg_notify(\(channel(name)), \(payload))", logger: logger)
    }

    /// Calls `body` with each payload notified on the schema's channel `name` until the task is
    /// cancelled, holding one pooled connection; after a failure it listens again `retry` later.
    public func listen(_ name: String, retry: Duration = .seconds(1), body: @Sendable (String) async -> Void) async {
        let channel = channel(name)
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        for try await notification in notifications { await body(notification.payload) }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("listening for notifications failed", metadata: ["channel": "\(channel)", "error": "\(String(reflecting: error))"])
            }
            try? await Task.sleep(for: retry)
        }
    }

    private func channel(_ name: String) -> String { "\(schema)_\(name)" }
}
