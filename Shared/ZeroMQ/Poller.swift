import CZeroMQ
import Foundation

/// What to wait for, or what happened, on a polled socket or descriptor.
public struct PollEvents: OptionSet, Sendable {
    public let rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }

    public static let readable = PollEvents(rawValue: Int16(ZMQ_POLLIN))
    public static let writable = PollEvents(rawValue: Int16(ZMQ_POLLOUT))
    public static let error = PollEvents(rawValue: Int16(ZMQ_POLLERR))
}

/// A `zmq_poll` set over sockets and plain descriptors, addressed by the index `add` returned.
/// The caller keeps every added socket alive while it is in the set.
public struct Poller {
    private var items: [zmq_pollitem_t] = []

    public init() {}

    /// The number of entries.
    public var count: Int { items.count }

    /// Empties the set.
    public mutating func removeAll() { items.removeAll(keepingCapacity: true) }

    /// Adds a socket; returns its index.
    @discardableResult
    public mutating func add(_ socket: ZMQSocket, events: PollEvents) -> Int {
        items.append(zmq_pollitem_t(socket: socket.handle, fd: -1, events: events.rawValue, revents: 0))
        return items.count - 1
    }

    /// Adds a plain file descriptor (an eventfd, for example); returns its index.
    @discardableResult
    public mutating func add(fd: Int32, events: PollEvents) -> Int {
        items.append(zmq_pollitem_t(socket: nil, fd: fd, events: events.rawValue, revents: 0))
        return items.count - 1
    }

    /// Changes what to wait for on an entry (adding `.writable` while a send backlog exists).
    public mutating func setEvents(_ events: PollEvents, at index: Int) {
        items[index].events = events.rawValue
    }

    /// Blocks until an entry is ready or `timeout` passes (nil waits forever). Returns the number of
    /// ready entries; 0 after a timeout or a signal.
    public mutating func poll(timeout: Duration?) throws -> Int {
        let milliseconds = timeout.map { max(0, Int($0.milliseconds)) + ($0 > .zero ? 1 : 0) } ?? -1
        let rc = items.withUnsafeMutableBufferPointer { zmq_poll($0.baseAddress, Int32($0.count), milliseconds) }
        if rc < 0 {
            let error = ZMQError("zmq_poll")
            if error.errno == EINTR { return 0 }
            throw error
        }
        return Int(rc)
    }

    /// What happened on an entry during the last `poll`.
    public func ready(_ index: Int) -> PollEvents { PollEvents(rawValue: items[index].revents) }
}
