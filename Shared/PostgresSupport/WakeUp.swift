import Synchronization

/// Wakes one waiting poller early: a queue's consumer waits `upTo` its poll interval, or until a
/// producer's commit signals new work (`Database.wakeUp`), so an idle service asks PostgreSQL once an
/// interval instead of several times a second, and new work starts at once.
public final class WakeUp: Sendable {
    private struct State {
        /// A signal no waiter has taken yet.
        var pending = false
        var waiter: (id: Int, continuation: CheckedContinuation<Void, Never>)?
        /// The wait whose task was cancelled before it could register.
        var cancelled: Int?
        var nextID = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Wakes the waiter, or the next wait if none is waiting.
    public func signal() {
        let waiter = state.withLock { state in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil as CheckedContinuation<Void, Never>?
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Returns at a signal (or one that came since the last wait), after `timeout`, or when the task
    /// is cancelled.
    public func wait(upTo timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.signalled() }
            await group.next()
            group.cancelAll()
        }
    }

    private func signalled() async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.pending || state.cancelled == id {
                        state.pending = false
                        return true
                    }
                    state.waiter = (id, continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let waiter = state.waiter, waiter.id == id else {
                    state.cancelled = id
                    return nil
                }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume()
        }
    }
}
