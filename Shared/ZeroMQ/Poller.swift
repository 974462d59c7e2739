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

/// A wait over sockets and plain descriptors, addressed by the index `add` returned. The caller keeps
/// every added socket alive while it is in the set.
///
/// It does what `zmq_poll` does with far fewer system calls. `zmq_poll` asks every socket in the set
/// for `ZMQ_EVENTS` on every pass, and makes a first pass that does not sleep; each question costs a
/// `poll` and a `getpid` inside libzmq, so a worker with 16 connections made about 70 system calls per
/// request. Here one `poll(2)` sleeps on every socket's `ZMQ_FD` (the descriptor libzmq signals when
/// it has news for the socket) beside the plain descriptors, and only sockets that may have changed
/// are asked: those whose descriptor fired, and those used since they were last asked (a send or a
/// receive can take in the signal that would otherwise wake the `poll`, the "edge-triggered" rule of
/// `ZMQ_FD`; `ZMQSocket` remembers the use).
public struct Poller {
    private struct Entry {
        let socket: ZMQSocket?
        var events: PollEvents
        var revents: PollEvents = []
    }

    private var entries: [Entry] = []
    private var descriptors: [pollfd] = []

    public init() {}

    /// The number of entries.
    public var count: Int { entries.count }

    /// Empties the set.
    public mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        descriptors.removeAll(keepingCapacity: true)
    }

    /// Adds a socket; returns its index.
    @discardableResult
    public mutating func add(_ socket: ZMQSocket, events: PollEvents) -> Int {
        // Asked at the next poll whatever its descriptor says: a set rebuilt after an earlier poll read
        // the socket's events (clearing its edge-triggered signal) must not sleep on what it left unread.
        socket.mayHaveEvents = true
        entries.append(Entry(socket: socket, events: events))
        descriptors.append(pollfd(fd: socket.signalDescriptor, events: Int16(POLLIN), revents: 0))
        return entries.count - 1
    }

    /// Adds a plain file descriptor (an eventfd, for example); returns its index.
    @discardableResult
    public mutating func add(fd: Int32, events: PollEvents) -> Int {
        entries.append(Entry(socket: nil, events: events))
        descriptors.append(pollfd(fd: fd, events: Self.pollBits(events), revents: 0))
        return entries.count - 1
    }

    /// Changes what to wait for on an entry (adding `.writable` while a send backlog exists).
    public mutating func setEvents(_ events: PollEvents, at index: Int) {
        entries[index].events = events
        if entries[index].socket == nil { descriptors[index].events = Self.pollBits(events) }
    }

    /// Blocks until an entry is ready or `timeout` passes (nil waits forever). Returns the number of
    /// ready entries; 0 after a timeout or a signal.
    public mutating func poll(timeout: Duration?) throws -> Int {
        for index in entries.indices { entries[index].revents = [] }
        // Sockets used since they were last asked may hold messages no descriptor will announce.
        var ready = 0
        for index in entries.indices where entries[index].socket?.mayHaveEvents == true {
            ready += try ask(index)
        }
        let clock = ContinuousClock()
        let end = timeout.map { clock.now + $0 }
        var wait = ready > 0 ? Duration.zero : timeout
        while true {
            let milliseconds = wait.map { Int32(clamping: max(0, $0.milliseconds) + ($0 > .zero ? 1 : 0)) } ?? -1
            let rc = descriptors.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, nfds_t($0.count), milliseconds) }
            if rc < 0 {
                if errno == EINTR { return ready }
                throw ZMQError("poll", errno: errno)
            }
            if rc > 0 {
                for index in descriptors.indices where descriptors[index].revents != 0 {
                    if entries[index].socket != nil {
                        if entries[index].revents.isEmpty { ready += try ask(index) }
                    } else {
                        let revents = Self.events(descriptors[index].revents).intersection(entries[index].events.union(.error))
                        if !revents.isEmpty && entries[index].revents.isEmpty { ready += 1 }
                        entries[index].revents = revents
                    }
                }
            }
            // A socket's descriptor also fires for libzmq's own commands (a connection made, a pipe
            // freed); like zmq_poll, sleep again until something asked for happens or time is up.
            if ready > 0 { return ready }
            guard let end else { continue }
            let left = clock.now.duration(to: end)
            if left <= .zero { return 0 }
            wait = left
        }
    }

    /// What happened on an entry during the last `poll`.
    public func ready(_ index: Int) -> PollEvents { entries[index].revents }

    /// Asks a socket for its events; returns 1 when one that the entry waits for is there.
    private mutating func ask(_ index: Int) throws -> Int {
        guard let socket = entries[index].socket else { return 0 }
        let revents = try socket.pendingEvents().intersection(entries[index].events)
        entries[index].revents = revents
        return revents.isEmpty ? 0 : 1
    }

    private static func pollBits(_ events: PollEvents) -> Int16 {
        (events.contains(.readable) ? Int16(POLLIN) : 0) | (events.contains(.writable) ? Int16(POLLOUT) : 0)
    }

    /// As zmq_poll reports a plain descriptor: anything beyond in and out is an error.
    private static func events(_ bits: Int16) -> PollEvents {
        var events: PollEvents = []
        if bits & Int16(POLLIN) != 0 { events.insert(.readable) }
        if bits & Int16(POLLOUT) != 0 { events.insert(.writable) }
        if bits & ~Int16(POLLIN | POLLOUT | POLLPRI) != 0 { events.insert(.error) }
        return events
    }
}
