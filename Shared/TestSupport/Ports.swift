import Foundation

/// Free loopback TCP ports for tests that start processes which must know their port in advance.
public enum Ports {
    /// A port the kernel just handed out on 127.0.0.1 (bound, read, closed).
    public static func free() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(fd >= 0, "socket() failed")
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                precondition(bind(fd, raw, length) == 0, "bind() failed")
                precondition(getsockname(fd, raw, &length) == 0, "getsockname() failed")
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// `tcp://127.0.0.1:<free port>`.
    public static func freeEndpoint() -> String { "tcp://127.0.0.1:\(free())" }
}
