import Envelope
import Foundation
import Logging
import ServiceLifecycle
import ZeroMQ

/// What a subscriber hears: a (re)connection to the broker's proxy, after which anything published
/// while it was away is lost and must be caught up on, or an event.
public enum LiveDelivery: Sendable {
    case connected
    case event(type: String, body: [UInt8])
}

/// Receives the live events whose type starts with one of `topics` from the brokers' XPUB endpoints,
/// on one SUB socket owned by its own I/O thread, as the `deliveries` stream. Each completed
/// connection (the first, and every one after a broker restarts) is delivered as `.connected`
/// once the subscriptions are on their way, so the owner can catch up on what it missed.
///
/// With several brokers the socket connects to every one, each named in the list (libzmq resolves
/// a name again at every reconnection, so a broker that restarts elsewhere is found), and publishers publish through every one, so a subscriber hears every publisher while any broker
/// lives; the copies of an event that arrive through the other brokers are dropped by its id.
public final class EventSubscriber: Service {
    public let deliveries: AsyncStream<LiveDelivery>
    private let mailbox: Mailbox<Bool>
    private let reactor: Handoff<SubscriberReactor>

    public init(endpoint: String, topics: [String], credentials: BusCredentials? = nil, context: ZMQContext? = nil, logger: Logger) throws {
        let (stream, continuation) = AsyncStream.makeStream(of: LiveDelivery.self, bufferingPolicy: .bufferingNewest(100_000))
        deliveries = stream
        let mailbox = try Mailbox<Bool>()
        self.mailbox = mailbox
        reactor = Handoff(try SubscriberReactor(
            endpoint: endpoint, topics: topics, credentials: credentials, context: context ?? ZMQContext(), mailbox: mailbox, output: continuation, logger: logger))
    }

    public func run() async throws {
        guard let reactor = reactor.take() else { return }
        let mailbox = mailbox
        await IOThread.serve(name: "event-subscriber", owning: reactor, stop: { mailbox.post(true) }) { $0.run() }
    }
}

/// The SUB socket and its monitor, owned by the subscriber's I/O thread.
final class SubscriberReactor {
    private let socket: ZMQSocket
    private let monitor: ZMQSocket
    private let mailbox: Mailbox<Bool>
    private let output: AsyncStream<LiveDelivery>.Continuation
    private let logger: Logger
    /// The ids of the latest events delivered, to drop their copies from other brokers.
    private var seen = RecentIDs(capacity: 10_000)

    init(endpoint: String, topics: [String], credentials: BusCredentials?, context: ZMQContext, mailbox: Mailbox<Bool>,
         output: AsyncStream<LiveDelivery>.Continuation, logger: Logger) throws {
        socket = try ZMQSocket(context, type: .sub)
        for topic in topics { try socket.set(.subscribe, Array(topic.utf8)) }
        try socket.set(.receiveHighWaterMark, 100_000)
        try socket.keepConnected()
        try socket.secure(credentials)
        monitor = try socket.monitor(events: [.handshakeSucceeded])
        for broker in BrokerEndpoints(endpoint).configured { try socket.connect(broker) }
        self.mailbox = mailbox
        self.output = output
        self.logger = logger
    }

    func run() {
        var poller = Poller()
        let mailboxIndex = poller.add(fd: mailbox.descriptor, events: .readable)
        let socketIndex = poller.add(socket, events: .readable)
        let monitorIndex = poller.add(monitor, events: .readable)
        loop: while true {
            do {
                _ = try poller.poll(timeout: nil)
                if poller.ready(monitorIndex).contains(.readable) {
                    while let frames = try monitor.receive() {
                        if MonitorEvent(frames: frames)?.kind == .handshakeSucceeded { output.yield(.connected) }
                    }
                }
                if poller.ready(socketIndex).contains(.readable) {
                    while let frames = try socket.receive() {
                        guard frames.count == 2 else { continue }
                        if let id = JSONPeek.strings(["id"], in: frames[1])?[0], !seen.insert(id) { continue }
                        output.yield(.event(type: String(decoding: frames[0], as: UTF8.self), body: frames[1]))
                    }
                }
            } catch {
                logger.error("event subscriber failed", metadata: ["error": "\(String(reflecting: error))"])
                break
            }
            if poller.ready(mailboxIndex).contains(.readable), !mailbox.take().isEmpty { break loop }
        }
        _ = mailbox.close()
        output.finish()
        socket.stopMonitor()
        monitor.close()
        socket.close(linger: .zero)
    }
}

/// The last `capacity` ids seen, oldest forgotten first.
struct RecentIDs {
    let capacity: Int
    private var order: [String] = []
    private var next = 0
    private var members: Set<String> = []

    init(capacity: Int) { self.capacity = capacity }

    /// False when `id` is among the recent ones; otherwise remembers it.
    mutating func insert(_ id: String) -> Bool {
        guard !members.contains(id) else { return false }
        if order.count < capacity {
            order.append(id)
        } else {
            members.remove(order[next])
            order[next] = id
            next = (next + 1) % capacity
        }
        members.insert(id)
        return true
    }
}
