@testable import GatewayService
import Testing

/// Which address is the client's, with and without proxies in front of the gateway.
@Suite(.timeLimit(.minutes(2))) struct ClientAddressTests {
    @Test func withoutTrustedProxiesThePeerIsTheClientWhateverTheHeaderSays() {
        #expect(ClientAddress.resolve(peer: "198.51.100.7", forwardedFor: ["203.0.113.1"], trustedProxies: 0) == "198.51.100.7")
    }

    @Test func behindOneProxyTheEntryItAppendedIsTheClient() {
        // The client wrote 1.1.1.1 itself; the proxy appended the address it saw.
        let resolved = ClientAddress.resolve(peer: "10.0.0.2", forwardedFor: ["1.1.1.1, 203.0.113.9"], trustedProxies: 1)
        #expect(resolved == "203.0.113.9")
    }

    @Test func behindTwoProxiesTheSecondEntryFromTheRightIsTheClient() {
        let resolved = ClientAddress.resolve(peer: "10.0.0.3", forwardedFor: ["1.1.1.1", "2001:db8::5, 10.0.0.2"], trustedProxies: 2)
        #expect(resolved == "2001:db8::5", "header lines are one list")
    }

    @Test func aRequestThatSkippedTheProxyIsItsPeer() {
        #expect(ClientAddress.resolve(peer: "198.51.100.7", forwardedFor: [], trustedProxies: 1) == "198.51.100.7")
    }

    @Test func somethingThatIsNotAnAddressFallsBackToThePeer() {
        #expect(ClientAddress.resolve(peer: "10.0.0.2", forwardedFor: ["evil, not-an-ip"], trustedProxies: 1) == "10.0.0.2")
        #expect(ClientAddress.resolve(peer: nil, forwardedFor: [], trustedProxies: 0) == nil)
    }
}
