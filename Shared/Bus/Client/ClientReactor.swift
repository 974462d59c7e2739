import DequeModule
import Envelope
import HeapModule
import Logging
import Metrics
import ZeroMQ

/// How a request sent through the client ended, as the I/O thread reports it.
enum CallOutcome: Sendable {
    /// The reply's body frames.
    case reply([Frame])
    /// The deadline passed with no reply.
    case expired
    /// The client stopped before a reply came.
    case stopped
}

/// A request handed to the client's I/O thread.
struct PendingCall: Sendable {
    /// The correlation key: the envelope id, or the token of an MMI lookup.
    let key: String
    let frames: [Frame]
    let deadline: ContinuousClock.Instant
    let continuation: CheckedContinuation<CallOutcome, Never>
    /// An MMI lookup, asked of every live broker: answered `200` as soon as one has a worker for the
    /// service, `404` once every broker asked has none.
    var everyBroker = false
}

enum ClientCommand: Sendable {
    case send(PendingCall)
    case cancel(key: String)
    /// The brokers' endpoints as resolved again.
    case brokers([String])
    case stop
}

/// The client's connections to the brokers and its requests in flight, owned by one I/O thread.
///
/// One DEALER per broker (the Freelance pattern of the ZeroMQ guide over Majordomo brokers): calls
/// go to the live brokers in turn, and each request is held by the broker it was sent to. A socket
/// monitor reports a lost connection (a broker that exits or is killed at once, a silent one after
/// the ZMTP heartbeat's timeout); every request that broker held goes to another live broker, or
/// waits for one, within its deadline. Receivers deduplicate on the envelope id, and replies are
/// matched to callers by `correlationid` (or by the token MMI echoes back), so a reply that arrives
/// twice finds no caller the second time and is dropped.
final class ClientReactor {
    private struct InFlight {
        let call: PendingCall
        /// The broker holding the request; nil while it waits to be sent.
        var broker: String?
        /// An MMI lookup: the brokers asked that have not answered yet, and whether one said 404.
        var asked: Set<String> = []
        var notFound: [Frame]?
    }

    private struct Timeout: Comparable {
        let deadline: ContinuousClock.Instant
        let key: String
        static func < (a: Self, b: Self) -> Bool { a.deadline < b.deadline }
    }

    /// One broker's connection.
    private final class Link {
        let endpoint: String
        let socket: ZMQSocket
        let monitor: ZMQSocket
        /// The handshake completed and no disconnection was seen since.
        var live = false
        /// The requests this broker holds.
        var held: Set<String> = []
        let resent: Counter
        let connected: Gauge

        init(endpoint: String, socket: ZMQSocket, monitor: ZMQSocket) {
            self.endpoint = endpoint
            self.socket = socket
            self.monitor = monitor
            resent = Counter(label: "melon_bus_client_resent_total", dimensions: [("broker", endpoint)])
            connected = Gauge(label: "melon_bus_client_broker_connected", dimensions: [("broker", endpoint)])
        }
    }

    private let context: ZMQContext
    private let credentials: BusCredentials?
    private let mailbox: Mailbox<ClientCommand>
    private let logger: Logger
    private let clock = ContinuousClock()
    private var links: [Link] = []
    private var turn = 0
    private var inFlight: [String: InFlight] = [:]
    private var unsent = Deque<String>()
    private var timeouts = Heap<Timeout>()
    private var stopping = false
    private var poller = Poller()
    private var pollerIsStale = true

    init(endpoints: [String], credentials: BusCredentials?, context: ZMQContext, mailbox: Mailbox<ClientCommand>, logger: Logger) throws {
        self.context = context
        self.credentials = credentials
        self.mailbox = mailbox
        self.logger = logger
        for endpoint in endpoints { try open(endpoint) }
    }

    private func open(_ endpoint: String) throws {
        let socket = try ZMQSocket(context, type: .dealer)
        // Queue only to a live connection: while the broker is away, sends wait in `unsent`, where a
        // deadline can still find them, instead of in a libzmq pipe.
        try socket.set(.immediate, true)
        try socket.set(.sendHighWaterMark, 100_000)
        try socket.set(.receiveHighWaterMark, 100_000)
        // MDP has no client heartbeat; the ZMTP pings of `keepConnected` notice a vanished broker host.
        try socket.keepConnected()
        try socket.secure(credentials)
        let monitor = try socket.monitor(events: [.disconnected, .handshakeSucceeded])
        try socket.connect(endpoint)
        let link = Link(endpoint: endpoint, socket: socket, monitor: monitor)
        // inproc has no handshake to report (the all-in-one `melon`): its peer lives as long as the process.
        if endpoint.hasPrefix("inproc://") {
            link.live = true
            link.connected.record(1)
        }
        links.append(link)
        pollerIsStale = true
    }

    private func close(_ link: Link) {
        link.socket.stopMonitor()
        link.monitor.close()
        link.socket.close(linger: .zero)
        link.connected.record(0)
    }

    func run() {
        while !stopping {
            rebuildPollerIfNeeded()
            for index in links.indices { poller.setEvents(unsent.isEmpty ? .readable : [.readable, .writable], at: 2 + 2 * index) }
            let timeout = timeouts.min.map { max(.zero, clock.now.duration(to: $0.deadline)) }
            do {
                _ = try poller.poll(timeout: timeout)
            } catch {
                logger.error("client poll failed", metadata: ["error": "\(String(reflecting: error))"])
                break
            }
            if poller.ready(0).contains(.readable) {
                for command in mailbox.take() { handle(command) }
            }
            for (index, link) in links.enumerated() where !pollerIsStale {
                if poller.ready(1 + 2 * index).contains(.readable) { readMonitor(link) }
                if poller.ready(2 + 2 * index).contains(.readable) { readReplies(link) }
            }
            flushUnsent()
            expire(now: clock.now)
        }
        for command in mailbox.close() {
            if case .send(let call) = command { call.continuation.resume(returning: .stopped) }
        }
        for entry in inFlight.values { entry.call.continuation.resume(returning: .stopped) }
        inFlight.removeAll()
        for link in links { close(link) }
    }

    /// The mailbox first, then each broker's monitor and socket; writable interest while requests wait.
    private func rebuildPollerIfNeeded() {
        guard pollerIsStale else { return }
        poller.removeAll()
        poller.add(fd: mailbox.descriptor, events: .readable)
        for link in links {
            poller.add(link.monitor, events: .readable)
            poller.add(link.socket, events: .readable)
        }
        pollerIsStale = false
    }

    private func handle(_ command: ClientCommand) {
        switch command {
        case .send(let call):
            if let earlier = inFlight.removeValue(forKey: call.key) {
                forget(call.key, earlier)
                earlier.call.continuation.resume(returning: .stopped)
            }
            inFlight[call.key] = InFlight(call: call)
            unsent.append(call.key)
            timeouts.insert(Timeout(deadline: call.deadline, key: call.key))
        case .cancel(let key):
            if let entry = inFlight.removeValue(forKey: key) {
                forget(key, entry)
                entry.call.continuation.resume(returning: .stopped)
            }
        case .brokers(let endpoints):
            follow(endpoints)
        case .stop:
            stopping = true
        }
    }

    /// Opens connections to brokers that appeared and closes those of brokers that went, handing
    /// what they held to the others.
    private func follow(_ endpoints: [String]) {
        let wanted = Set(endpoints)
        for link in links where !wanted.contains(link.endpoint) {
            logger.info("a broker left the set; its requests go to the others", metadata: ["broker": "\(link.endpoint)"])
            link.live = false
            requeue(link)
            close(link)
        }
        links.removeAll { !wanted.contains($0.endpoint) }
        for endpoint in endpoints where !links.contains(where: { $0.endpoint == endpoint }) {
            logger.info("a broker joined the set", metadata: ["broker": "\(endpoint)"])
            do { try open(endpoint) } catch {
                logger.error("could not connect to a broker", metadata: ["broker": "\(endpoint)", "error": "\(String(reflecting: error))"])
            }
        }
        pollerIsStale = true
    }

    /// Removes a finished request from the broker(s) holding it.
    private func forget(_ key: String, _ entry: InFlight) {
        for link in links where link.endpoint == entry.broker || entry.asked.contains(link.endpoint) { link.held.remove(key) }
    }

    /// The next live broker in turn.
    private func nextLive() -> Link? {
        guard !links.isEmpty else { return nil }
        for step in 0..<links.count {
            let link = links[(turn + step) % links.count]
            if link.live {
                turn = (turn + step + 1) % links.count
                return link
            }
        }
        return nil
    }

    private func flushUnsent() {
        while let key = unsent.first {
            guard let entry = inFlight[key], entry.broker == nil, entry.asked.isEmpty else {
                unsent.removeFirst()
                continue
            }
            if entry.call.everyBroker {
                let live = links.filter(\.live)
                guard !live.isEmpty else { return }
                var asked: Set<String> = []
                for link in live where (try? link.socket.send(entry.call.frames)) == true {
                    asked.insert(link.endpoint)
                    link.held.insert(key)
                }
                guard !asked.isEmpty else { return }
                inFlight[key]?.asked = asked
                unsent.removeFirst()
                continue
            }
            // Each live broker in turn until one takes it: a full or just-lost connection refuses.
            var sentTo: Link?
            for _ in 0..<links.count {
                guard let link = nextLive() else { break }
                do {
                    if try link.socket.send(entry.call.frames) {
                        sentTo = link
                        break
                    }
                } catch {
                    logger.error("client send failed", metadata: ["broker": "\(link.endpoint)", "error": "\(String(reflecting: error))"])
                }
            }
            guard let link = sentTo else { return }
            inFlight[key]?.broker = link.endpoint
            link.held.insert(key)
            unsent.removeFirst()
        }
    }

    /// Reads replies `["", "MDPC01", service, body...]` and hands each to its caller.
    private func readReplies(_ link: Link) {
        for _ in 0..<10_000 {
            guard let frames = try? link.socket.receive() else { return }
            guard frames.count >= 4, frames[0].isEmpty, frames[1] == MDP.client else {
                logger.warning("client ignored a malformed reply")
                continue
            }
            let body = Array(frames[3...])
            guard let key = Self.correlationKey(service: frames[2], body: body) else {
                logger.warning("client ignored a reply it cannot correlate")
                continue
            }
            link.held.remove(key)
            guard var entry = inFlight[key] else {
                logger.debug("client dropped a reply no caller waits for (late or duplicate)", metadata: ["correlationid": "\(key)"])
                continue
            }
            if entry.call.everyBroker, body.last != Self.found {
                // One broker has no worker for the service: the answer once every broker asked agrees.
                entry.asked.remove(link.endpoint)
                entry.notFound = body
                inFlight[key] = entry
                guard entry.asked.isEmpty else { continue }
            }
            inFlight.removeValue(forKey: key)
            forget(key, entry)
            entry.call.continuation.resume(returning: .reply(body))
        }
    }

    private static let mmiServiceFrame = Array(MDP.mmiService.utf8)
    private static let found = Array("200".utf8)

    private static func correlationKey(service: Frame, body: [Frame]) -> String? {
        if service == mmiServiceFrame {
            return body.count == 2 ? String(decoding: body[0], as: UTF8.self) : nil
        }
        guard body.count == 1 else { return nil }
        return JSONPeek.strings(["correlationid"], in: body[0])?[0] ?? nil
    }

    private func readMonitor(_ link: Link) {
        while let frames = try? link.monitor.receive() {
            guard let event = MonitorEvent(frames: frames) else { continue }
            logger.debug("broker connection event", metadata: ["event": "\(event.kind.rawValue)", "broker": "\(link.endpoint)"])
            switch event.kind {
            case .disconnected:
                link.live = false
                link.connected.record(0)
                requeue(link)
            case .handshakeSucceeded:
                link.live = true
                link.connected.record(1)
            default:
                break
            }
        }
    }

    /// Puts every request a broker held back at the front of the queue, for the next live broker;
    /// an MMI lookup only stops waiting for that broker's answer.
    private func requeue(_ link: Link) {
        let held = link.held
        link.held.removeAll()
        var again: [String] = []
        for key in held {
            guard var entry = inFlight[key] else { continue }
            if entry.call.everyBroker {
                entry.asked.remove(link.endpoint)
                if entry.asked.isEmpty, let notFound = entry.notFound {
                    inFlight.removeValue(forKey: key)
                    entry.call.continuation.resume(returning: .reply(notFound))
                    continue
                }
                inFlight[key] = entry
                if !entry.asked.isEmpty { continue }
            }
            entry.broker = nil
            inFlight[key] = entry
            again.append(key)
        }
        guard !again.isEmpty else { return }
        link.resent.increment(by: again.count)
        for key in again.reversed() { unsent.prepend(key) }
        logger.info("broker connection lost; resending the requests it held", metadata: ["broker": "\(link.endpoint)", "count": "\(again.count)"])
    }

    private func expire(now: ContinuousClock.Instant) {
        while let first = timeouts.min, first.deadline <= now {
            _ = timeouts.popMin()
            if let entry = inFlight[first.key], entry.call.deadline == first.deadline {
                inFlight.removeValue(forKey: first.key)
                forget(first.key, entry)
                entry.call.continuation.resume(returning: .expired)
            }
        }
    }
}
