import Foundation
import Synchronization
import ZeroMQ

/// Round trips between a Swift task and an I/O thread, the two hand-offs every bus call makes
/// (mailbox to the thread, continuation back to the task): the floor under the bus's own latency.
enum HandoffBenchmark {
    private final class Reply: Sendable {
        let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil)
    }

    static func run(roundTrips: Int) async throws -> BusBenchmark.Result {
        let mailbox = try Mailbox<CheckedContinuation<Void, Never>?>()
        let thread = Task {
            await IOThread.run(name: "handoff", owning: ()) { _ in
                var poller = Poller()
                poller.add(fd: mailbox.descriptor, events: .readable)
                while true {
                    _ = try? poller.poll(timeout: nil)
                    for item in mailbox.take() {
                        guard let continuation = item else { return }
                        continuation.resume()
                    }
                }
            }
        }
        let clock = ContinuousClock()
        var latencies: [Duration] = []
        let start = clock.now
        for _ in 0..<roundTrips {
            let sent = clock.now
            await withCheckedContinuation { mailbox.post($0) }
            latencies.append(sent.duration(to: clock.now))
        }
        let elapsed = start.duration(to: clock.now)
        mailbox.post(nil)
        await thread.value
        return BusBenchmark.Result(latencies: latencies, elapsed: elapsed)
    }
}
