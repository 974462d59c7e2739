import Foundation
import Synchronization
import Testing
@testable import ZeroMQ

@Suite(.timeLimit(.minutes(2))) struct MailboxTests {
    @Test func postingWakesAPollingThreadAndKeepsOrder() async throws {
        let mailbox = try Mailbox<Int>()
        final class Received: Sendable { let values = Mutex<[Int]>([]) }
        let received = Received()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await IOThread.run(name: "mailbox-test", owning: ()) { _ in
                    var poller = Poller()
                    poller.add(fd: mailbox.descriptor, events: .readable)
                    var done = false
                    while !done {
                        // No timeout: only a post can wake this thread.
                        _ = try? poller.poll(timeout: nil)
                        for value in mailbox.take() {
                            if value < 0 { done = true } else { received.values.withLock { $0.append(value) } }
                        }
                    }
                }
            }
            for value in 0..<1000 { mailbox.post(value) }
            mailbox.post(-1)
        }
        #expect(received.values.withLock { $0 } == Array(0..<1000))
    }

    @Test func aClosedMailboxRefusesPostsAndReturnsWhatWasQueued() throws {
        let mailbox = try Mailbox<String>()
        #expect(mailbox.post("a"))
        #expect(mailbox.close() == ["a"])
        #expect(!mailbox.post("b"))
        #expect(mailbox.take().isEmpty)
    }
}
