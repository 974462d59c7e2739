/// Waits until `condition` holds, checking every `interval`, for at most `timeout`.
/// Returns whether it held: tests assert on the result. The timeout only bounds a hang (a condition
/// that holds returns at once), so it is generous: a loaded 2-core machine running the suites side by
/// side took more than 10 s for what takes 1 s alone.
public func eventually(
    timeout: Duration = .seconds(30), interval: Duration = .milliseconds(50),
    _ condition: @Sendable () async throws -> Bool
) async -> Bool {
    let end = ContinuousClock.now + timeout
    repeat {
        if (try? await condition()) == true { return true }
        try? await Task.sleep(for: interval)
    } while ContinuousClock.now < end
    return false
}
