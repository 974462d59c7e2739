import CZeroMQ
import Foundation

/// Runs a socket owner on a dedicated OS thread.
///
/// ZeroMQ sockets are not thread-safe. An owner (a broker, a worker pool, a client) is built on the
/// caller's thread, then moved once to its own thread, which from then on is the only one touching
/// its sockets. Other code talks to it through a `Mailbox`.
public enum IOThread {
    /// Moves `owner` to a new thread named `name`, runs `body` there, and returns when `body` does.
    /// The stack is 1 MiB unless `stackSize` says otherwise (a thread that runs handlers needs more).
    public static func run<Owner>(
        name: String,
        owning owner: Owner,
        stackSize: Int = 1 << 20,
        body: @escaping @Sendable (Owner) -> Void
    ) async {
        let transfer = Transfer(owner)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                // Foundation's `name` does not reach the kernel here; top, ps and perf show this one.
                melon_set_thread_name(name)
                body(transfer.take())
                done.resume()
            }
            thread.name = name
            thread.stackSize = stackSize
            thread.start()
        }
    }

    /// Starts `body` on a new thread named `name` and returns at once: a helper beside an I/O thread
    /// (one that wakes on a timer, say), which ends when `body` returns.
    public static func detach(name: String, stackSize: Int = 256 << 10, body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            melon_set_thread_name(name)
            body()
        }
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
    }
}

/// Carries a non-Sendable owner to the thread that will own it.
///
/// @unchecked Sendable: the value is handed over exactly once, before the thread starts (thread start
/// is a full memory barrier) and is never touched by the sending thread afterwards.
private final class Transfer<Value>: @unchecked Sendable {
    private var value: Value?
    init(_ value: Value) { self.value = value }
    func take() -> Value {
        defer { value = nil }
        return value!
    }
}
