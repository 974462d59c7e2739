import Foundation

extension Date {
    /// This moment moved by `duration` (earlier when it is negative), to the millisecond: a
    /// deadline, an expiry, the start of a window.
    public func adding(_ duration: Duration) -> Date {
        let (seconds, attoseconds) = duration.components
        return addingTimeInterval(Double(seconds * 1000 + attoseconds / 1_000_000_000_000_000) / 1000)
    }
}
