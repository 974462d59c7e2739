import Foundation
import ServiceSupport

/// The client's IP address, told apart from the proxies in front of the gateway.
///
/// `X-Forwarded-For` counts only when the connection's peer is a trusted proxy (inside one of the
/// `trustedProxies` networks): then the hops are read from the right, each trusted proxy vouching
/// for the entry to its left, and the client is the first hop that is not a trusted proxy. Entries
/// further left are whatever the client wrote. Without trusted networks, or from any other peer, it
/// is the peer itself, whatever the header says.
enum ClientAddress {
    static func resolve(peer: String?, forwardedFor: [String], trustedProxies: [IPNetwork]) -> String? {
        guard let peer = peer.flatMap(valid) else { return nil }
        func trusted(_ address: String) -> Bool { trustedProxies.contains { $0.contains(address) } }
        var client = peer
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() {
            // The hop to the right is a trusted proxy: it vouches for this one, which must be an address.
            guard trusted(client), let address = valid(hop) else { break }
            client = address
        }
        return client
    }

    /// `text` when it is an IPv4 or IPv6 address.
    static func valid(_ text: String) -> String? { IPNetwork.isAddress(text) ? text : nil }
}
