import Foundation

/// The client's IP address, told apart from the proxies in front of the gateway.
///
/// With `trustedProxies` = 0 it is the connection's peer. Behind N proxies that each append the
/// address they were connected from to `X-Forwarded-For`, it is the entry N places from the right
/// (the peer counting as the last entry): entries further left are whatever the client wrote.
enum ClientAddress {
    static func resolve(peer: String?, forwardedFor: [String], trustedProxies: Int) -> String? {
        guard trustedProxies > 0 else { return peer.flatMap(valid) }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) } + [peer ?? ""]
        let index = hops.count - 1 - trustedProxies
        // Fewer hops than proxies: the request did not come through all of them; use the leftmost.
        return valid(hops[max(index, 0)]) ?? peer.flatMap(valid)
    }

    /// `text` when it is an IPv4 or IPv6 address.
    static func valid(_ text: String) -> String? {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1 ? text : nil
    }
}
