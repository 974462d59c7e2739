import CZeroMQ
import Foundation

/// One frame of a multipart message.
public typealias Frame = [UInt8]

/// The libzmq socket types Melon uses.
public enum SocketType: Sendable {
    case req, rep, dealer, router, pub, sub, xpub, xsub, pair, push, pull

    var raw: Int32 {
        switch self {
        case .req: ZMQ_REQ
        case .rep: ZMQ_REP
        case .dealer: ZMQ_DEALER
        case .router: ZMQ_ROUTER
        case .pub: ZMQ_PUB
        case .sub: ZMQ_SUB
        case .xpub: ZMQ_XPUB
        case .xsub: ZMQ_XSUB
        case .pair: ZMQ_PAIR
        case .push: ZMQ_PUSH
        case .pull: ZMQ_PULL
        }
    }
}

/// A libzmq socket. Not thread-safe and deliberately not `Sendable`: it belongs to one thread at a time,
/// and moves only through `IOThread`, whose thread start is the full memory barrier libzmq requires.
public final class ZMQSocket {
    /// Kept so the context outlives every socket made from it (zmq_ctx_term waits for sockets).
    public let context: ZMQContext
    public let type: SocketType
    let handle: UnsafeMutableRawPointer
    private var isClosed = false
    /// Used since `pendingEvents()` last asked: a call into libzmq may have taken in the signal that
    /// would otherwise make `signalDescriptor` readable, so only asking tells what is pending.
    var mayHaveEvents = true
    /// `ZMQ_FD`: readable when libzmq has news for this socket (see `Poller`).
    private(set) lazy var signalDescriptor: Int32 = (try? get(SocketOption(raw: ZMQ_FD))) ?? -1

    /// Opens a socket of `type` with `linger` applied, so closing it never blocks longer than that.
    public init(_ context: ZMQContext, type: SocketType, linger: Duration = .zero) throws {
        guard let handle = zmq_socket(context.handle, type.raw) else { throw ZMQError("zmq_socket") }
        self.context = context
        self.type = type
        self.handle = handle
        try set(.linger, Int32(linger.milliseconds))
    }

    deinit { close() }

    /// Binds to an endpoint such as `tcp://127.0.0.1:5555` (`tcp://127.0.0.1:*` picks a free port).
    public func bind(_ endpoint: String) throws {
        mayHaveEvents = true
        guard zmq_bind(handle, endpoint) == 0 else { throw ZMQError("zmq_bind(\(endpoint))") }
    }

    /// Connects to an endpoint; libzmq reconnects by itself when the peer goes away.
    public func connect(_ endpoint: String) throws {
        mayHaveEvents = true
        guard zmq_connect(handle, endpoint) == 0 else { throw ZMQError("zmq_connect(\(endpoint))") }
    }

    /// The endpoint last bound or connected, with the real port after a `*` bind.
    public var lastEndpoint: String {
        var buffer = [CChar](repeating: 0, count: 1024)
        var size = buffer.count
        guard zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size) == 0 else { return "" }
        let bytes = buffer.prefix(max(0, size - 1)).map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Sends `frames` as one multipart message. With `dontWait` it returns false, having sent nothing,
    /// when the socket cannot take the message now (libzmq delivers multipart messages atomically, so
    /// only the first frame can meet `EAGAIN`).
    @discardableResult
    public func send(_ frames: [Frame], dontWait: Bool = true) throws -> Bool {
        precondition(!frames.isEmpty, "a message has at least one frame")
        mayHaveEvents = true
        var index = 0
        while index < frames.count {
            var flags = dontWait ? ZMQ_DONTWAIT : 0
            if index < frames.count - 1 { flags |= ZMQ_SNDMORE }
            let rc = frames[index].withUnsafeBytes { zmq_send(handle, $0.baseAddress, $0.count, flags) }
            if rc < 0 {
                let error = ZMQError("zmq_send")
                if error.errno == EINTR { continue }
                if error.wouldBlock && index == 0 { return false }
                throw error
            }
            index += 1
        }
        return true
    }

    /// Receives one whole multipart message, or nil when `dontWait` is set and none is waiting.
    public func receive(dontWait: Bool = true) throws -> [Frame]? {
        try receive(dontWait: dontWait, userID: false)?.frames
    }

    /// Receives one whole multipart message with the `User-Id` its connection was authenticated as
    /// (what the ZAP handler answered; nil without one), or nil when none is waiting.
    public func receiveWithUserID(dontWait: Bool = true) throws -> (frames: [Frame], userID: String?)? {
        try receive(dontWait: dontWait, userID: true)
    }

    private func receive(dontWait: Bool, userID wantsUserID: Bool) throws -> (frames: [Frame], userID: String?)? {
        mayHaveEvents = true
        var frames: [Frame] = []
        var userID: String?
        var message = zmq_msg_t()
        zmq_msg_init(&message)
        defer { zmq_msg_close(&message) }
        while true {
            // Only the first frame may be missing; the rest of a multipart message arrives with it.
            let flags = (dontWait && frames.isEmpty) ? ZMQ_DONTWAIT : 0
            if zmq_msg_recv(&message, handle, flags) < 0 {
                let error = ZMQError("zmq_msg_recv")
                if error.errno == EINTR { continue }
                if error.wouldBlock && frames.isEmpty { return nil }
                throw error
            }
            // A ROUTER's own address frame carries no metadata: the first frame from the peer does.
            if wantsUserID && userID == nil, let property = zmq_msg_gets(&message, "User-Id") {
                userID = String(cString: property)
            }
            let size = zmq_msg_size(&message)
            if size == 0 {
                frames.append([])
            } else {
                frames.append(Frame(UnsafeRawBufferPointer(start: zmq_msg_data(&message), count: size)))
            }
            if zmq_msg_more(&message) == 0 { return (frames, userID) }
        }
    }

    /// What the socket can do now (`ZMQ_EVENTS`, which also takes in libzmq's pending commands).
    func pendingEvents() throws -> PollEvents {
        let events = try get(SocketOption(raw: ZMQ_EVENTS))
        mayHaveEvents = false
        return PollEvents(rawValue: Int16(truncatingIfNeeded: events))
    }

    /// Closes the socket, discarding unsent messages after `linger` when given (the linger set at open
    /// otherwise). Safe to call twice.
    public func close(linger: Duration? = nil) {
        guard !isClosed else { return }
        isClosed = true
        if let linger { try? set(.linger, Int32(linger.milliseconds)) }
        zmq_close(handle)
    }
}

extension Duration {
    /// Whole milliseconds, rounded down, for libzmq's millisecond options.
    public var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
