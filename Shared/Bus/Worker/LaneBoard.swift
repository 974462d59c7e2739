import Synchronization

/// Hands each worker connection's request straight to that connection's lane: a child task of the
/// runtime that serves one request at a time, as a Majordomo worker connection does.
///
/// The I/O thread calls `deliver`; the lane awaits `next`. A request delivered before the lane asks
/// is kept (there is at most one per connection). After `finish`, lanes get nil once they ask.
final class LaneBoard: Sendable {
    private enum Slot {
        case empty
        case waiting(CheckedContinuation<IncomingRequest?, Never>)
        case ready(IncomingRequest)
    }

    private struct State {
        var slots: [Slot]
        var finished = false
    }

    private let state: Mutex<State>

    init(lanes: Int) {
        state = Mutex(State(slots: Array(repeating: .empty, count: lanes)))
    }

    /// I/O thread: gives `request` to the lane of its connection.
    func deliver(_ request: IncomingRequest) {
        let waiting = state.withLock { state -> CheckedContinuation<IncomingRequest?, Never>? in
            switch state.slots[request.connection] {
            case .waiting(let continuation):
                state.slots[request.connection] = .empty
                return continuation
            case .empty, .ready:
                state.slots[request.connection] = .ready(request)
                return nil
            }
        }
        waiting?.resume(returning: request)
    }

    /// Lane `lane`: the next request, or nil once the board is finished (or the lane cancelled).
    func next(_ lane: Int) async -> IncomingRequest? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<IncomingRequest?, Never>) in
                let immediate = state.withLock { state -> IncomingRequest?? in
                    if case .ready(let request) = state.slots[lane] {
                        state.slots[lane] = .empty
                        return .some(request)
                    }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.slots[lane] = .waiting(continuation)
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            release(lane)
        }
    }

    /// No more requests: every waiting lane gets nil.
    func finish() {
        let waiting = state.withLock { state -> [CheckedContinuation<IncomingRequest?, Never>] in
            state.finished = true
            var waiting: [CheckedContinuation<IncomingRequest?, Never>] = []
            for index in state.slots.indices {
                if case .waiting(let continuation) = state.slots[index] {
                    waiting.append(continuation)
                    state.slots[index] = .empty
                }
            }
            return waiting
        }
        for continuation in waiting { continuation.resume(returning: nil) }
    }

    private func release(_ lane: Int) {
        let waiting = state.withLock { state -> CheckedContinuation<IncomingRequest?, Never>? in
            guard case .waiting(let continuation) = state.slots[lane] else { return nil }
            state.slots[lane] = .empty
            return continuation
        }
        waiting?.resume(returning: nil)
    }
}
