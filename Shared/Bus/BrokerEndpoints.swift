import Dispatch
import Foundation
import ZeroMQ

#if canImport(Glibc)
import Glibc
#endif

/// The brokers a member of the bus connects to, as configured: endpoints separated by commas
/// (`tcp://broker-0:5555,tcp://broker-1:5555`), or a name that resolves to several addresses (a
/// Kubernetes headless Service names every broker pod). `resolved()` gives the endpoints to connect to
/// now; a `BrokerEndpoints.Watcher` resolves them again periodically, so brokers that come and go are
/// followed.
public struct BrokerEndpoints: Sendable, Equatable, CustomStringConvertible {
    public let configured: [String]

    public init(_ list: String) {
        configured = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    public init(_ endpoints: [String]) { configured = endpoints }

    public var description: String { configured.joined(separator: ",") }

    /// Whether any endpoint names its host, so that resolving again may find other brokers.
    public var hasNames: Bool { configured.contains(where: Self.isName) }

    static func isName(_ endpoint: String) -> Bool {
        guard let host = hostAndPort(endpoint)?.host else { return false }
        return !(host == "*" || host.hasPrefix("[") || host.allSatisfy { $0.isNumber || $0 == "." })
    }

    /// The host and port of a `tcp://host:port` endpoint; nil for any other form.
    static func hostAndPort(_ endpoint: String) -> (host: Substring, port: Substring)? {
        guard endpoint.hasPrefix("tcp://") else { return nil }
        let rest = endpoint.dropFirst("tcp://".count)
        guard let colon = rest.lastIndex(of: ":"), colon != rest.startIndex else { return nil }
        let port = rest[rest.index(after: colon)...]
        guard !port.isEmpty, port == "*" || port.allSatisfy(\.isNumber) else { return nil }
        return (rest[..<colon], port)
    }

    /// Whether every endpoint is one libzmq can connect to: `tcp://host:port`, `ipc://` or `inproc://`.
    public var isValid: Bool {
        !configured.isEmpty && configured.allSatisfy { Self.hostAndPort($0) != nil || $0.hasPrefix("ipc://") || $0.hasPrefix("inproc://") }
    }

    /// The endpoints to connect to now, in a stable order: a `tcp://` endpoint whose host is a name
    /// becomes one endpoint per address `resolver` gives it; literal addresses, `inproc://` and
    /// `ipc://` stay as they are, and so does a name that does not resolve (libzmq resolves it again at
    /// each reconnection, so a broker whose name appears later is reached).
    public func resolved(using resolver: HostResolver = .system) -> [String] {
        var seen: Set<String> = [], out: [String] = []
        for endpoint in configured {
            for concrete in Self.expand(endpoint, resolver) where seen.insert(concrete).inserted { out.append(concrete) }
        }
        return out
    }

    static func expand(_ endpoint: String, _ resolver: HostResolver) -> [String] {
        // A literal address (IPv4, or IPv6 in brackets) or every interface: nothing to resolve.
        guard isName(endpoint), let (host, port) = hostAndPort(endpoint) else { return [endpoint] }
        let addresses = resolver.addresses(String(host))
        return addresses.isEmpty ? [endpoint] : addresses.sorted().map { "tcp://\($0):\(port)" }
    }

    /// How a broker's host name becomes addresses, written as they go in an endpoint (IPv6 in
    /// brackets): the system's resolver, or a table of the test's.
    public struct HostResolver: Sendable {
        public let addresses: @Sendable (String) -> [String]

        public init(_ addresses: @escaping @Sendable (String) -> [String]) { self.addresses = addresses }

        /// getaddrinfo: the host's IPv4 addresses, or its IPv6 ones when it has none.
        public static let system = HostResolver { host in
            for family in [AF_INET, AF_INET6] {
                let addresses = BrokerEndpoints.resolve(host, family: family)
                if !addresses.isEmpty { return family == AF_INET6 ? addresses.map { "[\($0)]" } : addresses }
            }
            return []
        }
    }

    /// The addresses of `host` in `family`, as text.
    static func resolve(_ host: String, family: Int32) -> [String] {
        var hints = addrinfo()
        hints.ai_family = family
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var out: Set<String> = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if let address = entry.pointee.ai_addr,
               getnameinfo(address, entry.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                out.insert(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            next = entry.pointee.ai_next
        }
        return Array(out)
    }

    /// A `Watcher` of these endpoints when some are names, nil when every one is an address (nothing
    /// to follow): what a client or a worker runtime starts beside its reactor.
    public func watch(
        resolver: HostResolver, interval: Duration, initial: [String], changed: @escaping @Sendable ([String]) -> Void
    ) -> Watcher? {
        hasNames ? Watcher(self, resolver: resolver, interval: interval, initial: initial, changed: changed) : nil
    }

    /// Resolves the endpoints again every `interval` on a thread of its own (a DNS lookup may block)
    /// and hands each changed set to `changed`; `stop()` ends it.
    public final class Watcher: Sendable {
        private let stopSignal = DispatchSemaphore(value: 0)

        init(
            _ endpoints: BrokerEndpoints, resolver: HostResolver, interval: Duration, initial: [String], changed: @escaping @Sendable ([String]) -> Void
        ) {
            let stop = stopSignal
            let milliseconds = Int(max(100, interval.milliseconds))
            IOThread.detach(name: "broker-resolver") {
                var current = initial
                while stop.wait(timeout: .now() + .milliseconds(milliseconds)) == .timedOut {
                    let now = endpoints.resolved(using: resolver)
                    // A name that did not resolve this time (a DNS hiccup, a Service with no ready pod
                    // for a moment) stays in the result as a name: keep the brokers known instead of
                    // dropping every connection until the next lookup.
                    if now.contains(where: BrokerEndpoints.isName) && !current.contains(where: BrokerEndpoints.isName) { continue }
                    if now != current {
                        current = now
                        changed(now)
                    }
                }
            }
        }

        public func stop() { stopSignal.signal() }
    }
}
