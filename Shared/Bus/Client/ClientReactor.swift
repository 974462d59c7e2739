import DequeModule
import Envelope
import HeapModule
import Logging
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
}

enum ClientCommand: Sendable {
    case send(PendingCall)
    case cancel(key: String)
    case stop
}

/// The client's DEALER socket and its requests in flight, owned by one I/O thread.
///
/// Replies are matched to callers by envelope `correlationid` (or by the token MMI echoes back).
/// A socket monitor reports a lost broker connection; every request in flight is then sent again,
/// and once more when the new connection is up (the broker lost them if it restarted; receivers
/// deduplicate on the envelope id and a late duplicate reply finds no caller and is dropped).
final class ClientReactor {
    private struct InFlight {
        let call: PendingCall
        var sent = false
    }

    private struct Timeout: Comparable {
        let deadline: ContinuousClock.Instant
        let key: String
        static func < (a: Self, b: Self) -> Bool { a.deadline < b.deadline }
    }

    private let socket: ZMQSocket
    private let monitor: ZMQSocket
    private let mailbox: Mailbox<ClientCommand>
    private let logger: Logger
    private let clock = ContinuousClock()
    private var inFlight: [String: InFlight] = [:]
    private var unsent = Deque<String>()
    private var timeouts = Heap<Timeout>()
    private var stopping = false
    /// A disconnection was seen and no new connection has completed its handshake since.
    private var connectionLost = false

    init(endpoint: String, credentials: BusCredentials?, context: ZMQContext, mailbox: Mailbox<ClientCommand>, logger: Logger) throws {
        socket = try ZMQSocket(context, type: .dealer)
        // Queue only to a live connection: while the broker is away, sends wait in `unsent`, where a
        // deadline can still find them, instead of in a libzmq pipe.
        try socket.set(.immediate, true)
        try socket.set(.sendHighWaterMark, 100_000)
        try socket.set(.receiveHighWaterMark, 100_000)
        // MDP has no client heartbeat; the ZMTP pings of `keepConnected` notice a vanished broker host.
        try socket.keepConnected()
        try socket.secure(credentials)
        monitor = try socket.monitor(events: [.disconnected, .handshakeSucceeded])
        try socket.connect(endpoint)
        self.mailbox = mailbox
        self.logger = logger
    }

    func run() {
        var poller = Poller()
        let mailboxIndex = poller.add(fd: mailbox.descriptor, events: .readable)
        let socketIndex = poller.add(socket, events: .readable)
        let monitorIndex = poller.add(monitor, events: .readable)
        while !stopping {
            poller.setEvents(unsent.isEmpty ? .readable : [.readable, .writable], at: socketIndex)
            let timeout = timeouts.min.map { max(.zero, clock.now.duration(to: $0.deadline)) }
            do {
                _ = try poller.poll(timeout: timeout)
            } catch {
                logger.error("client poll failed", metadata: ["error": "\(String(reflecting: error))"])
                break
            }
            if poller.ready(monitorIndex).contains(.readable) { readMonitor() }
            if poller.ready(socketIndex).contains(.readable) { readReplies() }
            if poller.ready(mailboxIndex).contains(.readable) {
                for command in mailbox.take() { handle(command) }
            }
            flushUnsent()
            expire(now: clock.now)
        }
        for command in mailbox.close() {
            if case .send(let call) = command { call.continuation.resume(returning: .stopped) }
        }
        for entry in inFlight.values { entry.call.continuation.resume(returning: .stopped) }
        inFlight.removeAll()
        socket.stopMonitor()
        monitor.close()
        socket.close(linger: .zero)
    }

    private func handle(_ command: ClientCommand) {
        switch command {
        case .send(let call):
            if let earlier = inFlight[call.key] {
                earlier.call.continuation.resume(returning: .stopped)
            }
            inFlight[call.key] = InFlight(call: call)
            unsent.append(call.key)
            timeouts.insert(Timeout(deadline: call.deadline, key: call.key))
        case .cancel(let key):
            inFlight.removeValue(forKey: key)?.call.continuation.resume(returning: .stopped)
        case .stop:
            stopping = true
        }
    }

    private func flushUnsent() {
        while let key = unsent.first {
            guard let entry = inFlight[key], !entry.sent else {
                unsent.removeFirst()
                continue
            }
            do {
                guard try socket.send(entry.call.frames) else { return }
            } catch {
                logger.error("client send failed", metadata: ["error": "\(String(reflecting: error))"])
                return
            }
            inFlight[key]?.sent = true
            unsent.removeFirst()
        }
    }

    /// Reads replies `["", "MDPC01", service, body...]` and hands each to its caller.
    private func readReplies() {
        for _ in 0..<10_000 {
            guard let frames = try? socket.receive() else { return }
            guard frames.count >= 4, frames[0].isEmpty, frames[1] == MDP.client else {
                logger.warning("client ignored a malformed reply")
                continue
            }
            let body = Array(frames[3...])
            guard let key = Self.correlationKey(service: frames[2], body: body) else {
                logger.warning("client ignored a reply it cannot correlate")
                continue
            }
            if let entry = inFlight.removeValue(forKey: key) {
                entry.call.continuation.resume(returning: .reply(body))
            } else {
                logger.debug("client dropped a reply no caller waits for (late or duplicate)", metadata: ["correlationid": "\(key)"])
            }
        }
    }

    private static let mmiServiceFrame = Array(MDP.mmiService.utf8)

    private static func correlationKey(service: Frame, body: [Frame]) -> String? {
        if service == mmiServiceFrame {
            return body.count == 2 ? String(decoding: body[0], as: UTF8.self) : nil
        }
        guard body.count == 1 else { return nil }
        return JSONPeek.strings(["correlationid"], in: body[0])?[0] ?? nil
    }

    private func readMonitor() {
        while let frames = try? monitor.receive() {
            guard let event = MonitorEvent(frames: frames) else { continue }
            logger.debug("broker connection event", metadata: ["event": "\(event.kind.rawValue)", "endpoint": "\(event.endpoint)"])
            switch event.kind {
            case .disconnected:
                connectionLost = true
                resendInFlight(reason: "broker connection lost")
            case .handshakeSucceeded where connectionLost:
                // libzmq reports the disconnection and detaches the dead pipe independently, so a request
                // sent just after the event may still have gone into the dead pipe. Once the new
                // connection is up, everything still unanswered goes again.
                connectionLost = false
                resendInFlight(reason: "broker connection back")
            default:
                break
            }
        }
    }

    /// Queues every request already sent and not yet answered to be sent again.
    private func resendInFlight(reason: String) {
        let resend = inFlight.filter(\.value.sent).keys
        for key in resend { inFlight[key]?.sent = false }
        unsent.append(contentsOf: resend)
        if !resend.isEmpty {
            logger.info("\(reason); resending requests in flight", metadata: ["count": "\(resend.count)"])
        }
    }

    private func expire(now: ContinuousClock.Instant) {
        while let first = timeouts.min, first.deadline <= now {
            _ = timeouts.popMin()
            if let entry = inFlight[first.key], entry.call.deadline == first.deadline {
                inFlight.removeValue(forKey: first.key)
                entry.call.continuation.resume(returning: .expired)
            }
        }
    }
}
