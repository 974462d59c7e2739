/// Waits until `condition` holds, checking every `interval`, for at most `timeout`.
/// Returns whether it held: tests assert on the result.
public func eventually(
    timeout: Duration = .seconds(10), interval: Duration = .milliseconds(50),
    _ condition: @Sendable () async throws -> Bool
) async -> Bool {
    let end = ContinuousClock.now + timeout
    repeat {
        if (try? await condition()) == true { return true }
        try? await Task.sleep(for: interval)
    } while ContinuousClock.now < end
    return false
}
