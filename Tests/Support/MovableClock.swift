import Foundation
import ServiceSupport
import Synchronization

/// A service clock a test moves forward instead of sleeping. Running, it is the system's time plus
/// how far the test has moved it (so rows PostgreSQL stamps itself stay in step); stopped, it stands
/// still between moves, so a test can assert exact seconds however loaded the machine is.
public final class MovableClock: Sendable {
    private let offset = Mutex<Duration>(.zero)
    /// Where a stopped clock stands before any move: its time of day and monotonic time.
    private let stopped: (date: Date, instant: ContinuousClock.Instant)?

    /// A running clock, or with `stopped` one that stands still until moved.
    public init(stopped: Bool = false) {
        self.stopped = stopped ? (Date(), .now) : nil
    }

    /// Now, on this clock.
    @Sendable public func now() -> Date {
        (stopped?.date ?? Date()).addingTimeInterval(Double(offset.withLock { $0 }.milliseconds) / 1000)
    }

    /// Monotonic time on this clock.
    @Sendable public func instant() -> ContinuousClock.Instant {
        (stopped?.instant ?? .now) + offset.withLock { $0 }
    }

    /// The clock a service reads.
    public var clock: ServiceClock { ServiceClock({ [self] in now() }, instant: { [self] in instant() }) }

    /// Moves the clock `duration` forward.
    public func advance(_ duration: Duration) {
        offset.withLock { $0 += duration }
    }
}
