import ServiceLifecycle
import ZeroMQ

extension IOThread {
    /// Runs `owner` on its own thread until `body` returns, as a ServiceGroup service does: a
    /// graceful shutdown or the task's cancellation calls `stop`, which tells the owner to end.
    static func serve<Owner>(
        name: String, owning owner: Owner, stop: @escaping @Sendable () -> Void, body: @escaping @Sendable (Owner) -> Void
    ) async {
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await IOThread.run(name: name, owning: owner, body: body)
            } onGracefulShutdown: {
                stop()
            }
        } onCancel: {
            stop()
        }
    }
}

extension ZMQSocket {
    /// How every bus socket that connects to the broker behaves: it reconnects 100 ms after a loss,
    /// backing off to 1 s, and ZMTP pings (every second, 3 s to answer) notice a broker host that
    /// vanished without closing the connection.
    func keepConnected() throws {
        try set(.reconnectInterval, 100)
        try set(.reconnectIntervalMax, 1000)
        try set(.heartbeatInterval, 1000)
        try set(.heartbeatTimeout, 3000)
    }
}
