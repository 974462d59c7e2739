@testable import GatewayService
import ServiceSupport
import Testing

/// Which address is the client's, with and without proxies in front of the gateway.
@Suite(.timeLimit(.minutes(2))) struct ClientAddressTests {
    static let proxies = ["10.0.0.0/8", "fd00::/8"].compactMap(IPNetwork.init)

    @Test func withoutTrustedProxiesThePeerIsTheClientWhateverTheHeaderSays() {
        #expect(ClientAddress.resolve(peer: "198.51.100.7", forwardedFor: ["203.0.113.1"], trustedProxies: []) == "198.51.100.7")
    }

    @Test func behindATrustedProxyTheEntryItAppendedIsTheClient() {
        // The client wrote 1.1.1.1 itself; the proxy appended the address it saw.
        let resolved = ClientAddress.resolve(peer: "10.0.0.2", forwardedFor: ["1.1.1.1, 203.0.113.9"], trustedProxies: Self.proxies)
        #expect(resolved == "203.0.113.9")
    }

    @Test func behindTwoTrustedProxiesTheFirstUntrustedEntryFromTheRightIsTheClient() {
        let resolved = ClientAddress.resolve(peer: "fd00::3", forwardedFor: ["1.1.1.1", "2001:db8::5, 10.0.0.2"], trustedProxies: Self.proxies)
        #expect(resolved == "2001:db8::5", "header lines are one list")
    }

    /// The abuse hop counting allowed: a client that reaches the gateway around the proxy wrote the
    /// header itself, so it names whoever it likes; only a trusted peer's header counts.
    @Test func aClientThatSkipsTheProxyCannotChooseItsAddress() {
        #expect(ClientAddress.resolve(peer: "198.51.100.7", forwardedFor: ["203.0.113.1"], trustedProxies: Self.proxies) == "198.51.100.7")
        #expect(ClientAddress.resolve(peer: "198.51.100.7", forwardedFor: [], trustedProxies: Self.proxies) == "198.51.100.7")
        // Nor can it pass for a proxy by writing proxy addresses into the header.
        #expect(ClientAddress.resolve(peer: "198.51.100.7", forwardedFor: ["203.0.113.1, 10.0.0.9"], trustedProxies: Self.proxies) == "198.51.100.7")
    }

    @Test func somethingThatIsNotAnAddressStopsTheWalk() {
        #expect(ClientAddress.resolve(peer: "10.0.0.2", forwardedFor: ["evil, not-an-ip"], trustedProxies: Self.proxies) == "10.0.0.2")
        #expect(ClientAddress.resolve(peer: nil, forwardedFor: ["203.0.113.1"], trustedProxies: Self.proxies) == nil)
    }

    @Test func networksParseAndMatchByPrefix() {
        #expect(IPNetwork("10.0.0.0/8")?.contains("10.255.1.2") == true && IPNetwork("10.0.0.0/8")?.contains("11.0.0.1") == false)
        #expect(IPNetwork("192.0.2.7")?.contains("192.0.2.7") == true && IPNetwork("192.0.2.7")?.contains("192.0.2.8") == false)
        #expect(IPNetwork("10.0.0.0/8")?.contains("::ffff:10.1.2.3") == true, "IPv4-mapped IPv6 counts as IPv4")
        #expect(IPNetwork("fd00::/8")?.contains("fd12::1") == true && IPNetwork("fd00::/8")?.contains("fe80::1") == false)
        #expect(IPNetwork("0.0.0.0/0")?.contains("203.0.113.1") == true && IPNetwork("0.0.0.0/0")?.contains("::1") == false)
        for bad in ["10.0.0.0/33", "fd00::/129", "10.0.0/8", "1", "10.0.0.0/", "/8", "10.0.0.0/8/8"] { #expect(IPNetwork(bad) == nil, "\(bad)") }
    }
}
