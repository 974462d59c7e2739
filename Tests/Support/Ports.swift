import Foundation

/// Free loopback TCP ports for tests that start processes which must know their port in advance.
///
/// Ports come from below the kernel's ephemeral range (32768 and up on Linux): a test that restarts
/// a broker on its port leaves it unbound for a moment, and an ephemeral port could then be handed
/// to another test's `tcp://127.0.0.1:*` bind or outgoing connection, mixing two tests' peers.
public enum Ports {
    private static let range = 20_000..<32_000

    /// A port in 20000-31999 that was free on 127.0.0.1 a moment ago.
    public static func free() -> Int {
        for _ in 0..<1000 {
            let port = Int.random(in: range)
            if isFree(port) { return port }
        }
        preconditionFailure("no free port in \(range)")
    }

    /// `tcp://127.0.0.1:<free port>`.
    public static func freeEndpoint() -> String { "tcp://127.0.0.1:\(free())" }

    private static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
