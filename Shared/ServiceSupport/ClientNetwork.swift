import Foundation

/// The network a client address stands for in per-client limits: an IPv4 address as it is, an
/// IPv6 address as its /64 (one subscriber's network, `2001:db8:1:2::/64`), an IPv4-mapped IPv6
/// address as the IPv4 address; nil for anything else.
public enum ClientNetwork {
    public static func key(_ text: String) -> String? {
        guard let bytes = IPNetwork.address(text) else { return nil }
        return bytes.count == 4 ? IPNetwork.text(bytes) : IPNetwork.text(bytes, groups: 4) + "::/64"
    }
}
