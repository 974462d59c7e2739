import Foundation

/// Where a service reads the time from: the time of day (expiries, due dates, what SQL binds as
/// now) and a monotonic reading for intervals (caches, back-offs), which a test clock moves together.
public struct ServiceClock: Sendable {
    public let now: @Sendable () -> Date
    /// Monotonic time: never jumps when the system's time is set.
    public let instant: @Sendable () -> ContinuousClock.Instant

    public init(_ now: @escaping @Sendable () -> Date, instant: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.now = now
        self.instant = instant
    }

    /// The system's clock.
    public static let system = ServiceClock { Date() }

    /// A clock stopped at `date` (tests).
    public static func fixed(_ date: Date) -> ServiceClock { ServiceClock { date } }
}
