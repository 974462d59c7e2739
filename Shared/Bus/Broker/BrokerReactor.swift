import DequeModule
import Envelope
import Foundation
import HeapModule
import Logging
import ZeroMQ

/// Commands the broker's I/O thread accepts from other threads.
enum BrokerCommand: Sendable {
    case stop
}

/// The broker's state and sockets, owned by its I/O thread (see `IOThread`).
final class BrokerReactor {
    /// A client request waiting for, or held by, a worker.
    struct Job {
        let client: Frame
        let body: [Frame]
        let id: String?
        let type: String?
        let deadline: ContinuousClock.Instant
        var dispatches = 0
    }

    /// One service: its queue and its workers with room for a request, in turn.
    final class ServiceState {
        let name: String
        let nameFrame: Frame
        var queue = Deque<Job>()
        /// Each worker that holds fewer requests than its capacity, once; the least recently served first.
        var ready = Deque<Frame>()
        var workerCount = 0
        /// Since when the service has had no worker and no queued request; nil while it has either.
        var unusedSince: ContinuousClock.Instant?
        let metrics: BrokerMetrics.Service

        init(name: String) {
            self.name = name
            self.nameFrame = Array(name.utf8)
            self.metrics = BrokerMetrics.Service(name: name)
        }
    }

    struct WorkerState {
        let service: ServiceState
        /// Requests the connection takes at once (its READY's capacity frame; 1 without it).
        let capacity: Int
        var expiry: ContinuousClock.Instant
        var lastSent: ContinuousClock.Instant
        /// The requests it holds, by the client address frame each was sent with: the client's
        /// address, and with a capacity above 1 a tag after it, so that replies to one client tell
        /// apart.
        var jobs: [Frame: Job] = [:]
        var nextTag: UInt32 = 0

        var hasRoom: Bool { jobs.count < capacity }

        /// Takes `job`, sent `now`; returns the client address frame to send it with.
        mutating func hold(_ job: Job, now: ContinuousClock.Instant) -> Frame {
            var sentAs = job.client
            if capacity > 1 {
                withUnsafeBytes(of: nextTag.bigEndian) { sentAs.append(contentsOf: $0) }
                nextTag &+= 1
            }
            jobs[sentAs] = job
            lastSent = now
            return sentAs
        }
    }

    /// A queued deadline to check; stale entries (job already served) are skipped when popped.
    struct DeadlineCheck: Comparable {
        let deadline: ContinuousClock.Instant
        let service: String
        static func < (a: Self, b: Self) -> Bool { a.deadline < b.deadline }
    }

    let configuration: BrokerConfiguration
    let router: ZMQSocket
    let subscribers: ZMQSocket?
    let publishers: ZMQSocket?
    /// The ZAP handler, with CURVE on.
    let zap: ZMQSocket?
    let access: BusAccess?
    let mailbox: Mailbox<BrokerCommand>
    let logger: Logger
    let codec: EnvelopeCodec
    let clock = ContinuousClock()
    var services: [String: ServiceState] = [:]
    var workers: [Frame: WorkerState] = [:]
    var deadlines = Heap<DeadlineCheck>()
    var stopping = false

    init(configuration: BrokerConfiguration, context: ZMQContext, mailbox: Mailbox<BrokerCommand>, logger: Logger) throws {
        self.configuration = configuration
        self.mailbox = mailbox
        self.logger = logger
        self.codec = EnvelopeCodec(maxBytes: configuration.maxMessageBytes)
        access = configuration.access
        // The handler is bound before any socket accepts a connection, so none is admitted unasked.
        if access != nil {
            let handler = try ZMQSocket(context, type: .rep)
            try handler.bind(Self.zapEndpoint)
            zap = handler
        } else {
            zap = nil
        }
        let router = try ZMQSocket(context, type: .router)
        self.router = router
        if let access { try router.serveCurve(access.keyPair, domain: Domain.bus) }
        try router.set(.routerMandatory, true)
        try router.set(.sendHighWaterMark, 100_000)
        try router.set(.receiveHighWaterMark, 100_000)
        // A hard cap far above the envelope limit: bodies between the two get a typed `too_large`
        // reply; anything beyond is a peer to cut off before it costs memory.
        try router.set(.maxMessageSize, Int64(configuration.maxMessageBytes) * 2 + (1 << 20))
        try router.bind(configuration.endpoint)
        if let subscriberEndpoint = configuration.eventsEndpoint, let publisherEndpoint = configuration.eventsPublishEndpoint {
            let xpub = try ZMQSocket(context, type: .xpub)
            try xpub.set(.xpubVerbose, true)
            if let access { try xpub.serveCurve(access.keyPair, domain: Domain.events) }
            try xpub.bind(subscriberEndpoint)
            let xsub = try ZMQSocket(context, type: .xsub)
            if let access { try xsub.serveCurve(access.keyPair, domain: Domain.publish) }
            try xsub.bind(publisherEndpoint)
            subscribers = xpub
            publishers = xsub
        } else {
            subscribers = nil
            publishers = nil
        }
    }

    /// The I/O loop: blocks in zmq_poll on the sockets and the mailbox until told to stop.
    func run() {
        var poller = Poller()
        let mailboxIndex = poller.add(fd: mailbox.descriptor, events: .readable)
        let routerIndex = poller.add(router, events: .readable)
        let proxy = subscribers.flatMap { xpub in publishers.map { (xpub, $0) } }
        let xpubIndex = proxy.map { poller.add($0.0, events: .readable) }
        let xsubIndex = proxy.map { poller.add($0.1, events: .readable) }
        let zapIndex = zap.map { poller.add($0, events: .readable) }
        var nextHeartbeat = clock.now + configuration.heartbeat.interval
        logger.info("broker listening", metadata: ["endpoint": "\(configuration.endpoint)"])
        while !stopping {
            var wake = nextHeartbeat
            if let first = deadlines.min { wake = min(wake, first.deadline) }
            do {
                _ = try poller.poll(timeout: max(.zero, clock.now.duration(to: wake)))
            } catch {
                logger.error("broker poll failed", metadata: ["error": "\(String(reflecting: error))"])
                break
            }
            if poller.ready(mailboxIndex).contains(.readable) {
                for command in mailbox.take() {
                    switch command {
                    case .stop: stopping = true
                    }
                }
            }
            if let zap, let zapIndex, poller.ready(zapIndex).contains(.readable) { answerZAP(zap) }
            if poller.ready(routerIndex).contains(.readable) { drainRouter() }
            if let (xpub, xsub) = proxy, let xpubIndex, let xsubIndex {
                if poller.ready(xsubIndex).contains(.readable) { forward(from: xsub, to: xpub) }
                if poller.ready(xpubIndex).contains(.readable) { forward(from: xpub, to: xsub) }
            }
            let now = clock.now
            if now >= nextHeartbeat {
                heartbeat(now: now)
                nextHeartbeat = now + configuration.heartbeat.interval
            }
            expireQueued(now: now)
        }
        shutDown()
    }

    /// Reads what the ROUTER has, up to a batch, so timers still run under a flood.
    private func drainRouter() {
        for _ in 0..<10_000 {
            let message: (frames: [Frame], userID: String?)?
            do {
                message = access == nil ? try router.receive().map { ($0, nil) } : try router.receiveWithUserID()
            } catch {
                logger.error("broker receive failed", metadata: ["error": "\(String(reflecting: error))"])
                return
            }
            guard let message else { return }
            handle(message.frames, from: message.userID.flatMap { access?.named[$0] })
        }
    }

    /// Dispatches one message from the ROUTER, `[address, "", header, ...]`, sent by `member` (with CURVE on).
    private func handle(_ frames: [Frame], from member: BusMember?) {
        guard frames.count >= 3, frames[1].isEmpty else {
            rejectPeer(frames.first, reason: "a message without the empty delimiter frame")
            return
        }
        let address = frames[0]
        if frames[2] == MDP.client {
            handleClient(address, frames[3...], from: member)
        } else if frames[2] == MDP.worker {
            handleWorker(address, frames, from: member)
        } else {
            rejectPeer(address, reason: "an unknown protocol header")
        }
    }

    /// Answers garbage with a DISCONNECT and forgets the peer if it was a worker.
    func rejectPeer(_ address: Frame?, reason: String) {
        BrokerMetrics.protocolErrors.increment()
        logger.warning("broker rejected a peer", metadata: ["reason": "\(reason)"])
        guard let address else { return }
        if workers[address] != nil {
            deleteWorker(address, notify: true)
        } else {
            send([address] + MDP.disconnect)
        }
    }

    /// Sends on the ROUTER; a vanished or flooded peer loses the message, which is logged, never fatal.
    func send(_ frames: [Frame]) {
        do {
            if try !router.send(frames) {
                BrokerMetrics.droppedSends.increment()
                logger.warning("broker dropped a message to a peer that is not reading")
            }
        } catch let error as ZMQError where error.errno == EHOSTUNREACH {
            BrokerMetrics.droppedSends.increment()
            logger.debug("broker dropped a message to a peer that has gone")
        } catch {
            logger.error("broker send failed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    private func forward(from source: ZMQSocket, to destination: ZMQSocket) {
        for _ in 0..<10_000 {
            guard let frames = try? source.receive() else { return }
            _ = try? destination.send(frames)
        }
    }

    /// Tells every worker to go (so they re-register with the next broker at once) and every waiting
    /// client that its request was not served.
    private func shutDown() {
        for (address, _) in workers { send([address] + MDP.disconnect) }
        for service in services.values {
            while let job = service.queue.popFirst() {
                replyError(job, service: service, OperationError(.unavailable, "the broker is restarting"))
            }
        }
        let linger = Duration.milliseconds(500)
        router.close(linger: linger)
        subscribers?.close(linger: .zero)
        publishers?.close(linger: .zero)
        zap?.close(linger: .zero)
        logger.info("broker stopped")
    }
}
