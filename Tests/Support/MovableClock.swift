import Foundation
import ServiceKit
import Synchronization

/// A service clock a test moves forward instead of sleeping: the system's time plus how far the test
/// has moved it (so rows PostgreSQL stamps itself stay in step).
public final class MovableClock: Sendable {
    private let offset = Mutex<Duration>(.zero)

    public init() {}

    /// Now, on this clock.
    @Sendable public func now() -> Date {
        Date().addingTimeInterval(Double(offset.withLock { $0 }.milliseconds) / 1000)
    }

    /// The clock a service reads.
    public var clock: ServiceClock { ServiceClock { [self] in now() } }

    /// Moves the clock `duration` forward.
    public func advance(_ duration: Duration) {
        offset.withLock { $0 += duration }
    }
}
