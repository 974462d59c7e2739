import CZeroMQ
import Foundation
import Synchronization

/// Hands commands from any thread to the one I/O thread that owns a set of sockets.
///
/// The owner polls `descriptor` (an eventfd) beside its sockets and calls `take()` when it is readable.
/// Posting writes the eventfd only when the queue goes from empty to non-empty, so a burst of posts costs
/// one wake-up; the owner reads the eventfd before it empties the queue, so no post is ever missed.
public final class Mailbox<Command: Sendable>: Sendable {
    private struct State {
        var queue: [Command] = []
        var isClosed = false
    }

    private let state = Mutex(State())
    /// The eventfd the owning thread polls for readability.
    public let descriptor: Int32

    public init() throws {
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard fd >= 0 else { throw ZMQError("eventfd", errno: errno) }
        descriptor = fd
    }

    deinit { Glibc.close(descriptor) }

    /// Queues a command for the owner. Returns false, dropping it, once the mailbox is closed.
    @discardableResult
    public func post(_ command: Command) -> Bool {
        let (accepted, wasEmpty) = state.withLock { state -> (Bool, Bool) in
            guard !state.isClosed else { return (false, false) }
            let wasEmpty = state.queue.isEmpty
            state.queue.append(command)
            return (true, wasEmpty)
        }
        if wasEmpty { wake() }
        return accepted
    }

    /// Owner only: everything posted since the last call, in order.
    public func take() -> [Command] {
        var counter: UInt64 = 0
        _ = read(descriptor, &counter, MemoryLayout<UInt64>.size)
        return state.withLock { state in
            let commands = state.queue
            state.queue.removeAll(keepingCapacity: true)
            return commands
        }
    }

    /// Refuses further posts and returns what was still queued, for the owner to fail or finish.
    public func close() -> [Command] {
        state.withLock { state in
            state.isClosed = true
            let commands = state.queue
            state.queue.removeAll()
            return commands
        }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, MemoryLayout<UInt64>.size)
    }
}
