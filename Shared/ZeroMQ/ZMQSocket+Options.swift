import CZeroMQ

/// A socket option with the Swift type of its value.
public struct SocketOption<Value>: Sendable {
    let raw: Int32
}

extension SocketOption where Value == Int32 {
    /// Milliseconds unsent messages are kept after close (0 drops them).
    public static var linger: Self { .init(raw: ZMQ_LINGER) }
    /// Outgoing high-water mark in messages.
    public static var sendHighWaterMark: Self { .init(raw: ZMQ_SNDHWM) }
    /// Incoming high-water mark in messages.
    public static var receiveHighWaterMark: Self { .init(raw: ZMQ_RCVHWM) }
    /// First reconnect delay in milliseconds.
    public static var reconnectInterval: Self { .init(raw: ZMQ_RECONNECT_IVL) }
    /// Largest reconnect delay in milliseconds (exponential back-off up to it).
    public static var reconnectIntervalMax: Self { .init(raw: ZMQ_RECONNECT_IVL_MAX) }
    /// ZMTP heartbeat interval in milliseconds: pings the peer so a dead connection is noticed.
    public static var heartbeatInterval: Self { .init(raw: ZMQ_HEARTBEAT_IVL) }
    /// Milliseconds without traffic after a ZMTP ping before the connection is dropped.
    public static var heartbeatTimeout: Self { .init(raw: ZMQ_HEARTBEAT_TIMEOUT) }
    /// Milliseconds a blocking receive waits before it gives up (-1: forever).
    public static var receiveTimeout: Self { .init(raw: ZMQ_RCVTIMEO) }
}

extension SocketOption where Value == Bool {
    /// ROUTER: fail sends to unknown peers (`EHOSTUNREACH`) instead of dropping them silently.
    public static var routerMandatory: Self { .init(raw: ZMQ_ROUTER_MANDATORY) }
    /// XPUB: pass every subscription upstream, duplicates included.
    public static var xpubVerbose: Self { .init(raw: ZMQ_XPUB_VERBOSE) }
    /// Queue messages only to completed connections.
    public static var immediate: Self { .init(raw: ZMQ_IMMEDIATE) }
    /// Act as the CURVE server of the connections (the side holding the long-term key clients know).
    public static var curveServer: Self { .init(raw: ZMQ_CURVE_SERVER) }
}

extension SocketOption where Value == Int64 {
    /// Largest inbound frame in bytes; a peer sending a larger one is disconnected (-1: no limit).
    public static var maxMessageSize: Self { .init(raw: ZMQ_MAXMSGSIZE) }
}

extension SocketOption where Value == [UInt8] {
    /// The identity this socket presents to a ROUTER peer.
    public static var routingID: Self { .init(raw: ZMQ_ROUTING_ID) }
    /// SUB: add a topic prefix filter.
    public static var subscribe: Self { .init(raw: ZMQ_SUBSCRIBE) }
    /// SUB: remove a topic prefix filter.
    public static var unsubscribe: Self { .init(raw: ZMQ_UNSUBSCRIBE) }
    /// CURVE: this socket's public key (Z85 with a trailing NUL, or 32 bytes).
    public static var curvePublicKey: Self { .init(raw: ZMQ_CURVE_PUBLICKEY) }
    /// CURVE: this socket's secret key.
    public static var curveSecretKey: Self { .init(raw: ZMQ_CURVE_SECRETKEY) }
    /// CURVE client: the server's public key.
    public static var curveServerKey: Self { .init(raw: ZMQ_CURVE_SERVERKEY) }
    /// The ZAP domain the socket's connections are authenticated in.
    public static var zapDomain: Self { .init(raw: ZMQ_ZAP_DOMAIN) }
}

extension ZMQSocket {
    /// Sets an integer option.
    public func set(_ option: SocketOption<Int32>, _ value: Int32) throws {
        var value = value
        try setRaw(option.raw, &value, MemoryLayout<Int32>.size)
    }

    /// Sets a boolean option (libzmq takes it as an int).
    public func set(_ option: SocketOption<Bool>, _ value: Bool) throws {
        var value: Int32 = value ? 1 : 0
        try setRaw(option.raw, &value, MemoryLayout<Int32>.size)
    }

    /// Sets a 64-bit integer option.
    public func set(_ option: SocketOption<Int64>, _ value: Int64) throws {
        var value = value
        try setRaw(option.raw, &value, MemoryLayout<Int64>.size)
    }

    /// Sets a binary option.
    public func set(_ option: SocketOption<[UInt8]>, _ value: [UInt8]) throws {
        mayHaveEvents = true
        try value.withUnsafeBytes { buffer in
            guard zmq_setsockopt(handle, option.raw, buffer.baseAddress, buffer.count) == 0 else {
                throw ZMQError("zmq_setsockopt(\(option.raw))")
            }
        }
    }

    /// Reads an integer option.
    public func get(_ option: SocketOption<Int32>) throws -> Int32 {
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        guard zmq_getsockopt(handle, option.raw, &value, &size) == 0 else {
            throw ZMQError("zmq_getsockopt(\(option.raw))")
        }
        return value
    }

    private func setRaw(_ name: Int32, _ value: UnsafeRawPointer, _ size: Int) throws {
        mayHaveEvents = true
        guard zmq_setsockopt(handle, name, value, size) == 0 else { throw ZMQError("zmq_setsockopt(\(name))") }
    }
}
