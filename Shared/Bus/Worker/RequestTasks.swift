import ZeroMQ
import Synchronization

/// Runs each request a worker connection receives as its own task, started from the worker's I/O thread.
///
/// The task usually begins at once on the calling thread (`Task.immediate`), so a handler that does not
/// suspend (a computation, a cache hit, a refusal) runs and is answered without leaving the I/O thread:
/// no other thread is woken on the way in or out. When a burst has already used the I/O thread's
/// inline budget, the rest start on the global executor instead (see `WorkerReactor`). A handler that
/// suspends (a database query, a call to another service) continues on the global executor and its
/// reply comes back through the mailbox.
/// A handler should not compute for long before its first suspension: while it does, the process's
/// other requests wait (its heartbeats do not: the reactor's keeper sends them). Hashing a password or
/// filling a PDF runs on `NIOThreadPool`.
final class RequestTasks: Sendable {
    /// A request's handler: running its first steps on the I/O thread (`starting`), finished while
    /// `start` was still on the stack (`answered`), or continuing elsewhere (`running`).
    private enum Slot {
        case starting
        case answered([UInt8])
        case running(Task<Void, Never>)
    }

    private struct State {
        var slots: [Int: Slot] = [:]
        var finished = false
        var cancelled = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let mailbox: Mailbox<WorkerCommand>
    private let handle: @Sendable (IncomingRequest) async -> [UInt8]

    /// - Parameter handle: answers a request body with a reply body (the operation registry).
    init(mailbox: Mailbox<WorkerCommand>, handle: @escaping @Sendable (IncomingRequest) async -> [UInt8]) {
        self.mailbox = mailbox
        self.handle = handle
    }

    /// I/O thread: starts the handler of `request`, on this thread or (`onThisThread` false) on the
    /// global executor. Returns its reply if the handler finished before this returns; otherwise the
    /// reply is posted to the mailbox as `.reply` when it is ready.
    func start(_ request: IncomingRequest, onThisThread: Bool) -> [UInt8]? {
        let serial = request.serial
        state.withLock { $0.slots[serial] = .starting }
        let operation: @Sendable () async -> Void = { [self] in
            let reply = await handle(request)
            complete(request, reply)
        }
        let task = onThisThread ? Task.immediate(operation: operation) : Task(operation: operation)
        // Nothing that touches the concurrency runtime (resuming, cancelling) happens under the lock:
        // a cancellation handler holds a task's status lock while it takes this one.
        let (reply, idle, cancel) = state.withLock { state -> ([UInt8]?, [CheckedContinuation<Void, Never>], Bool) in
            switch state.slots[serial] {
            case .answered(let reply):
                state.slots[serial] = nil
                return (reply, Self.idleWaiters(&state), false)
            case .starting:
                state.slots[serial] = .running(task)
                return (nil, [], state.cancelled)
            case .running, nil:
                preconditionFailure("request \(serial) started a second handler")
            }
        }
        for waiter in idle { waiter.resume() }
        if cancel { task.cancel() }
        return reply
    }

    /// The handler's task, when it has its reply.
    private func complete(_ request: IncomingRequest, _ reply: [UInt8]) {
        let idle = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if case .starting = state.slots[request.serial] {
                state.slots[request.serial] = .answered(reply)
                return []
            }
            // Posted before the slot is freed: once it is free, the runtime may see every handler done
            // and post `.stop`, which must not overtake this reply. (Posting takes only the mailbox's
            // own lock, which is never held while this one is taken.)
            mailbox.post(.reply(connection: request.connection, generation: request.generation, client: request.client, body: reply))
            state.slots[request.serial] = nil
            return Self.idleWaiters(&state)
        }
        for waiter in idle { waiter.resume() }
    }

    /// No more requests will start (the I/O thread is draining or has stopped).
    func finish() {
        let idle = state.withLock { state in
            state.finished = true
            return Self.idleWaiters(&state)
        }
        for waiter in idle { waiter.resume() }
    }

    /// Cancels every handler still running; each answers (usually `unavailable`) and ends.
    func cancelAll() {
        let running = state.withLock { state -> [Task<Void, Never>] in
            state.cancelled = true
            return state.slots.values.compactMap { if case .running(let task) = $0 { task } else { nil } }
        }
        for task in running { task.cancel() }
    }

    /// Returns once `finish` was called and no handler is running.
    func finishedAndIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.finished && state.slots.isEmpty { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// The waiters to resume, once the lock is released, if the board is finished and idle.
    private static func idleWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        guard state.finished, state.slots.isEmpty else { return [] }
        defer { state.idleWaiters.removeAll() }
        return state.idleWaiters
    }
}
