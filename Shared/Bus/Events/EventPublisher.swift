import Foundation
import Logging
import Metrics
import ServiceLifecycle
import ZeroMQ

/// Publishes live events to the broker's XSUB endpoint from one PUB socket on its own I/O thread.
///
/// Best effort, as live events are: an event published while no subscriber listens, or beyond the
/// socket's high-water mark, is dropped (and counted in `melon_live_events_dropped_total`). Run it as a
/// service in the process's ServiceGroup; events published before it runs wait in its mailbox.
public final class EventPublisher: Service {
    private let source: String
    private let mailbox: Mailbox<PublisherCommand>
    private let reactor: Handoff<PublisherReactor>

    public init(endpoint: String, processName: String, credentials: BusCredentials? = nil, context: ZMQContext? = nil, logger: Logger) throws {
        source = "urn:melon:\(processName)"
        let mailbox = try Mailbox<PublisherCommand>()
        self.mailbox = mailbox
        reactor = Handoff(try PublisherReactor(endpoint: endpoint, credentials: credentials, context: context ?? ZMQContext(), mailbox: mailbox, logger: logger))
    }

    public func run() async throws {
        guard let reactor = reactor.take() else { return }
        let mailbox = mailbox
        await IOThread.serve(name: "event-publisher", owning: reactor, stop: { mailbox.post(.stop) }) { $0.run() }
    }

    /// Publishes an event of `type` carrying `data`; false when it could not be queued (the publisher
    /// stopped, or `data` does not encode).
    @discardableResult
    public func publish<Payload: Codable & Sendable>(_ type: String, _ data: Payload) -> Bool {
        guard let frames = try? LiveEvent(source: source, type: type, data: data).frames() else { return false }
        return mailbox.post(.publish(frames))
    }
}

enum PublisherCommand: Sendable {
    case publish([Frame])
    case stop
}

/// The PUB socket, owned by the publisher's I/O thread.
final class PublisherReactor {
    private let socket: ZMQSocket
    private let mailbox: Mailbox<PublisherCommand>
    private let logger: Logger
    private let dropped = Counter(label: "melon_live_events_dropped_total")

    init(endpoint: String, credentials: BusCredentials?, context: ZMQContext, mailbox: Mailbox<PublisherCommand>, logger: Logger) throws {
        socket = try ZMQSocket(context, type: .pub, linger: .milliseconds(500))
        try socket.set(.sendHighWaterMark, 10_000)
        try socket.keepConnected()
        try socket.secure(credentials)
        // Every broker's proxy, each named in the list: each passes the events to its subscribers.
        for broker in BrokerEndpoints(endpoint).configured { try socket.connect(broker) }
        self.mailbox = mailbox
        self.logger = logger
    }

    func run() {
        var poller = Poller()
        poller.add(fd: mailbox.descriptor, events: .readable)
        var stopping = false
        while !stopping {
            do {
                _ = try poller.poll(timeout: nil)
            } catch {
                logger.error("event publisher poll failed", metadata: ["error": "\(String(reflecting: error))"])
                break
            }
            for command in mailbox.take() {
                switch command {
                case .publish(let frames): send(frames)
                case .stop: stopping = true
                }
            }
        }
        for case .publish(let frames) in mailbox.close() { send(frames) }
        // Linger lets what was just queued reach the proxy before the socket goes.
        socket.close()
    }

    private func send(_ frames: [Frame]) {
        do {
            if try !socket.send(frames) { dropped.increment() }
        } catch {
            dropped.increment()
            logger.warning("a live event could not be sent", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
