import PostgresSupport
import Testing

/// The wake-up a queue's loop waits on: a signal ends the wait at once (or the next one, when it came
/// between waits), the timeout ends it otherwise, and cancelling the waiting task ends it too.
@Suite(.timeLimit(.minutes(5))) struct WakeUpTests {
    @Test func aSignalEndsTheWaitEarlyAndOneBetweenWaitsIsKept() async {
        let wakeUp = WakeUp()
        let clock = ContinuousClock()

        let waiting = Task { await wakeUp.wait(upTo: .seconds(30)) }
        try? await Task.sleep(for: .milliseconds(50))
        let signalled = clock.now
        wakeUp.signal()
        await waiting.value
        #expect(clock.now - signalled < .seconds(20), "woken by the signal, not the 30 s timeout")

        wakeUp.signal()  // nobody waits: kept for the next wait
        let kept = clock.now
        await wakeUp.wait(upTo: .seconds(30))
        #expect(clock.now - kept < .seconds(20))

        let quiet = clock.now
        await wakeUp.wait(upTo: .milliseconds(200))
        #expect(clock.now - quiet >= .milliseconds(200), "no signal left over: the timeout ends it")
    }

    @Test func cancellingTheWaiterEndsTheWait() async {
        let wakeUp = WakeUp()
        let clock = ContinuousClock()
        let started = clock.now
        let waiting = Task { await wakeUp.wait(upTo: .seconds(30)) }
        try? await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        await waiting.value
        #expect(clock.now - started < .seconds(20), "ended by the cancel, not the 30 s timeout (a loaded machine once took 5.9 s)")
        // A cancelled wait leaves no signal behind.
        let quiet = clock.now
        await wakeUp.wait(upTo: .milliseconds(200))
        #expect(clock.now - quiet >= .milliseconds(200))
    }
}
