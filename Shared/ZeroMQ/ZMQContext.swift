import CZeroMQ

/// A libzmq context. Thread-safe by libzmq's contract, so it may be shared freely.
public final class ZMQContext: @unchecked Sendable {
    // @unchecked: libzmq documents contexts as thread-safe; the pointer is never reassigned.
    let handle: UnsafeMutableRawPointer

    /// Creates a context with `ioThreads` libzmq I/O threads.
    public init(ioThreads: Int32 = 1) throws {
        guard let handle = zmq_ctx_new() else { throw ZMQError("zmq_ctx_new") }
        self.handle = handle
        if zmq_ctx_set(handle, ZMQ_IO_THREADS, ioThreads) != 0 {
            zmq_ctx_term(handle)
            throw ZMQError("zmq_ctx_set(ZMQ_IO_THREADS)")
        }
    }

    /// Makes every blocking call on this context's sockets return `ETERM`.
    public func shutdown() {
        zmq_ctx_shutdown(handle)
    }

    deinit {
        // Sockets hold a strong reference to their context, so all of them are closed by now.
        zmq_ctx_term(handle)
    }

    /// Whether libzmq was built with a capability such as "curve" or "ipc".
    public static func has(_ capability: String) -> Bool { zmq_has(capability) != 0 }

    /// The libzmq version as (major, minor, patch).
    public static var version: (Int32, Int32, Int32) {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return (major, minor, patch)
    }
}
