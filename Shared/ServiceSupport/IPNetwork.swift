import Foundation

/// A network in CIDR notation (`10.0.0.0/8`, `fd00::/8`; a bare address is the network of that
/// address alone), for telling trusted proxies from everyone else.
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    /// The network's address: 4 bytes for IPv4, 16 for IPv6.
    let bytes: [UInt8]
    let prefixLength: Int

    /// Nil for text that is not an address with an optional `/prefix` within its family's width.
    public init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let bytes = Self.address(String(parts[0])) else { return nil }
        let width = bytes.count * 8
        guard let prefix = parts.count == 2 ? Int(parts[1]) : width, (0...width).contains(prefix) else { return nil }
        self.bytes = bytes
        prefixLength = prefix
    }

    public var description: String { "\(Self.text(bytes))/\(prefixLength)" }

    /// Whether `address` (IPv4, IPv6, or IPv4-mapped IPv6 as IPv4) lies in the network.
    public func contains(_ address: String) -> Bool {
        guard let other = Self.address(address), other.count == bytes.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(bytes, other) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if mine & mask != theirs & mask { return false }
            remaining -= bits
        }
        return true
    }

    /// Whether `text` is an IPv4 or IPv6 address.
    public static func isAddress(_ text: String) -> Bool { address(text) != nil }

    /// The bytes of an IPv4 or IPv6 address; an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) as
    /// its IPv4 address.
    static func address(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }

    /// An address's bytes as text: dotted for IPv4, hex groups (not shortened) for IPv6; for IPv6,
    /// only the first `groups` of its 8 groups.
    static func text(_ bytes: [UInt8], groups: Int = 8) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: groups * 2, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }
}
