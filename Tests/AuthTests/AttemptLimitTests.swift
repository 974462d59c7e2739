import ServiceSupport
@testable import AuthService
import Testing

/// The back-off schedule and the keys client addresses are counted under.
@Suite(.timeLimit(.minutes(2))) struct AttemptLimitTests {
    let backoff = Backoff(freePerAccount: 5, freePerAccountAll: 50, freePerIP: 50, first: .seconds(30), max: .seconds(900), window: .seconds(3600))

    @Test func attemptsUpToTheFreeOnesAreNotBlocked() {
        #expect((1...5).allSatisfy { backoff.block(afterAttempt: $0, free: 5) == nil })
    }

    @Test func eachFurtherAttemptDoublesTheBlockUpToTheMaximum() {
        let blocks = (6...12).map { backoff.block(afterAttempt: $0, free: 5) }
        #expect(blocks == [.seconds(30), .seconds(60), .seconds(120), .seconds(240), .seconds(480), .seconds(900), .seconds(900)])
        #expect(backoff.block(afterAttempt: 10_000, free: 5) == .seconds(900), "no overflow, never permanent")
    }

    @Test func ipv4CountsPerAddressAndIPv6PerSlash64() {
        #expect(ClientNetwork.key("203.0.113.9") == "203.0.113.9")
        #expect(ClientNetwork.key("2001:db8:1:2::1") == "2001:db8:1:2::/64")
        #expect(ClientNetwork.key("2001:0db8:0001:0002:ffff:0:0:9") == ClientNetwork.key("2001:db8:1:2::1"))
        #expect(ClientNetwork.key("2001:db8:1:3::1") != ClientNetwork.key("2001:db8:1:2::1"))
        #expect(ClientNetwork.key("::ffff:198.51.100.4") == "198.51.100.4", "IPv4-mapped is the IPv4 address")
        #expect(ClientNetwork.key("not an address") == nil)
    }
}
