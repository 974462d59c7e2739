import Synchronization

/// Holds a non-Sendable value (a socket owner) until the one caller that will own it takes it.
///
/// @unchecked Sendable: `value` is only read or written under `lock`, and is handed out at most once,
/// after which the taker is its only user.
public final class Handoff<Value>: @unchecked Sendable {
    private let lock = Mutex(())
    private var value: Value?

    public init(_ value: Value) { self.value = value }

    /// The value, the first time; nil afterwards.
    public func take() -> Value? {
        lock.withLock { _ in
            defer { value = nil }
            return value
        }
    }
}
