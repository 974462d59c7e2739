import ServiceSupport
@testable import AuthService
import Testing

/// The keys client addresses are counted under (the back-off schedule is the kit's: BackoffTests).
@Suite(.timeLimit(.minutes(2))) struct AttemptLimitTests {
    @Test func ipv4CountsPerAddressAndIPv6PerSlash64() {
        #expect(ClientNetwork.key("203.0.113.9") == "203.0.113.9")
        #expect(ClientNetwork.key("2001:db8:1:2::1") == "2001:db8:1:2::/64")
        #expect(ClientNetwork.key("2001:0db8:0001:0002:ffff:0:0:9") == ClientNetwork.key("2001:db8:1:2::1"))
        #expect(ClientNetwork.key("2001:db8:1:3::1") != ClientNetwork.key("2001:db8:1:2::1"))
        #expect(ClientNetwork.key("::ffff:198.51.100.4") == "198.51.100.4", "IPv4-mapped is the IPv4 address")
        #expect(ClientNetwork.key("not an address") == nil)
    }
}
