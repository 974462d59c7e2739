import CZeroMQ
import Synchronization

/// Numbers the inproc endpoints of `monitor(events:)`.
private let monitorSerials = Atomic<Int>(0)

/// A connection event reported by a socket monitor.
public struct MonitorEvent: Sendable, Equatable {
    /// Which events to report.
    public struct Kind: OptionSet, Sendable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        public static let connected = Kind(rawValue: UInt16(ZMQ_EVENT_CONNECTED))
        public static let disconnected = Kind(rawValue: UInt16(ZMQ_EVENT_DISCONNECTED))
        public static let handshakeSucceeded = Kind(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_SUCCEEDED))
        public static let accepted = Kind(rawValue: UInt16(ZMQ_EVENT_ACCEPTED))
        public static let monitorStopped = Kind(rawValue: UInt16(ZMQ_EVENT_MONITOR_STOPPED))
    }

    public let kind: Kind
    /// The event's value: a descriptor, an errno or an interval, depending on the event.
    public let value: UInt32
    public let endpoint: String

    /// Parses libzmq's two-frame monitor message (16-bit event and 32-bit value in host order, then
    /// the endpoint), or returns nil when the frames are not one.
    public init?(frames: [Frame]) {
        guard frames.count == 2, frames[0].count == 6 else { return nil }
        let head = frames[0]
        kind = Kind(rawValue: UInt16(head[0]) | UInt16(head[1]) << 8)
        value = UInt32(head[2]) | UInt32(head[3]) << 8 | UInt32(head[4]) << 16 | UInt32(head[5]) << 24
        endpoint = String(decoding: frames[1], as: UTF8.self)
    }
}

extension ZMQSocket {
    /// Publishes this socket's `events` on the inproc `endpoint` and returns a connected PAIR socket
    /// that receives them. The caller polls the returned socket on the same thread as this one.
    public func monitor(_ endpoint: String, events: MonitorEvent.Kind) throws -> ZMQSocket {
        mayHaveEvents = true
        guard zmq_socket_monitor(handle, endpoint, Int32(events.rawValue)) == 0 else {
            throw ZMQError("zmq_socket_monitor(\(endpoint))")
        }
        let pair = try ZMQSocket(context, type: .pair)
        try pair.connect(endpoint)
        return pair
    }

    /// `monitor(_:events:)` on an inproc endpoint of its own (endpoints must be unique in a context).
    public func monitor(events: MonitorEvent.Kind) throws -> ZMQSocket {
        try monitor("inproc://melon-monitor-\(monitorSerials.add(1, ordering: .relaxed).newValue)", events: events)
    }

    /// Stops a monitor started with `monitor(_:events:)`.
    public func stopMonitor() {
        zmq_socket_monitor(handle, nil, 0)
    }
}
