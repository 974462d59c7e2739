import Dispatch
import Envelope
import Logging
import Synchronization
import ZeroMQ

/// Commands the worker I/O thread accepts from the runtime.
enum WorkerCommand: Sendable {
    /// The reply to the request delivered on `connection` while it had `generation`.
    case reply(connection: Int, generation: Int, client: Frame, body: [UInt8])
    /// Stop taking work: idle connections DISCONNECT now, busy ones after their reply.
    case drain
    /// DISCONNECT whatever is still connected and end the thread.
    case stop
    /// The brokers' endpoints as resolved again.
    case brokers([String])
}

/// A request taken off a worker connection, for its handler.
struct IncomingRequest: Sendable {
    /// Tells this request apart from every other this process has received.
    let serial: Int
    let connection: Int
    let generation: Int
    let client: Frame
    let body: [UInt8]
}

/// The worker connections of one service process, owned by one I/O thread.
///
/// Each connection is a DEALER speaking the MDP worker protocol to one broker and holds at most its
/// capacity of requests (one, or what its READY announced). With several brokers, every broker has
/// connections of its own and the process's WORKERS are split among them (`WorkerConfiguration.plan`);
/// when the set changes (a name resolved again), connections to a broker that left, or whose share
/// changed, retire once their requests have answered, and new ones READY. The thread replaces a connection's socket (and sends
/// READY again) when the broker goes silent or says DISCONNECT; a reply produced for a replaced socket
/// is dropped, because the broker has handed that request on or lost it with its restart.
///
/// Heartbeats go out whatever the handlers do. The I/O thread holds `gate` whenever it touches the
/// reactor (polling, receiving, sending) and lets go of it only while a handler runs on it; a second
/// thread, the keeper, wakes every half interval and, when the gate is free, sends the heartbeats
/// that are due. So a handler that computes for seconds before its first suspension holds up this
/// process's other requests for that long, but the broker never takes the process for dead and
/// never hands its requests to another worker because one of them is expensive. A handler still
/// running there after `hungAfter` (past any request's deadline) is taken as hung: the keeper stops,
/// and the broker hands the process's requests on.
final class WorkerReactor {
    struct Connection {
        /// The broker this connection speaks to.
        let endpoint: String
        var socket: ZMQSocket?
        var generation = 0
        /// Requests the connection takes at once, and those of its current socket whose handlers
        /// are running.
        let capacity: Int
        var running = 0
        /// Handlers still running for a socket since replaced: their replies are dropped.
        var stale = 0
        var lastReceived: ContinuousClock.Instant
        var lastSent: ContinuousClock.Instant
        /// The broker has spoken on this socket (counted in `health`).
        var confirmed = false
        /// DISCONNECTs in a row that answered READY before the broker said anything else (it
        /// refuses this worker: not a member, or beyond its rights), and when to try again.
        var refused = 0
        var retryAt: ContinuousClock.Instant?
        /// Leaves once its running requests have answered: its broker left the set or its share changed.
        var retiring = false
        /// Retired for good: never reconnected.
        var gone = false
    }

    let service: String
    /// The connections each set of brokers gets: broker and capacity.
    let plan: @Sendable ([String]) -> [(endpoint: String, capacity: Int)]
    let credentials: BusCredentials?
    let heartbeat: Heartbeat
    let context: ZMQContext
    let mailbox: Mailbox<WorkerCommand>
    let requests: RequestTasks
    let logger: Logger
    let health: WorkerHealth
    let clock = ContinuousClock()
    /// Held by whichever thread touches the state below and the sockets: the I/O thread, or the
    /// keeper while a handler runs on the I/O thread (see `keepHeartbeats`).
    let gate = Mutex(())
    var connections: [Connection]
    var draining = false
    var stopping = false
    private var poller = Poller()
    private var polled: [Int] = []  // poller entry i + 1 -> connection index
    private var pollerIsStale = true
    /// How long the handlers of one wake-up may run on this thread before the rest go elsewhere: a
    /// few hand-offs' worth (a hand-off costs 20 to 30 µs on the 2-core VM the benchmarks ran on).
    static let inlineBudget = Duration.microseconds(100)
    /// Requests read in this wake-up, started together by `startReceived`.
    private var received: [IncomingRequest] = []
    /// Since when the I/O thread has been starting handlers without the gate; nil while it holds it.
    private var inlineSince: ContinuousClock.Instant?
    /// How long handlers may run on the I/O thread before the keeper stops heartbeating for them: the
    /// gateway's longest deadline, after which nobody waits for their replies.
    static let hungAfter = Duration.seconds(60)
    /// The keeper has said that it stopped.
    private var keeperGaveUp = false
    private var nextSerial = 0

    init(
        service: String, endpoints: [String], plan: @escaping @Sendable ([String]) -> [(endpoint: String, capacity: Int)], credentials: BusCredentials?,
        heartbeat: Heartbeat, context: ZMQContext, mailbox: Mailbox<WorkerCommand>, requests: RequestTasks, health: WorkerHealth, logger: Logger
    ) {
        self.health = health
        self.service = service
        self.plan = plan
        self.credentials = credentials
        self.heartbeat = heartbeat
        self.context = context
        self.mailbox = mailbox
        self.requests = requests
        self.logger = logger
        let now = ContinuousClock.now
        connections = plan(endpoints).map { Connection(endpoint: $0.endpoint, capacity: $0.capacity, lastReceived: now, lastSent: now) }
    }

    func run() {
        let keeper = keepHeartbeats()
        defer { keeper.signal() }
        gate.withLock { _ in
            for index in connections.indices { connect(index) }
        }
        // Requests are read (and heartbeats sent) before the ones just received start, so that after a
        // long inline handler the broker's queued messages count before its silence is judged.
        while gate.withLock({ _ in turn() }) {
            startReceived()
        }
        gate.withLock { _ in
            for index in connections.indices { retire(index) }
        }
        requests.finish()
        _ = mailbox.close()
    }

    /// One wake-up, under `gate`: waits for the next message or timer, reads the mailbox and the
    /// connections, and sends what the timers say. False once the reactor stops.
    private func turn() -> Bool {
        inlineSince = nil
        guard !stopping else { return false }
        rebuildPollerIfNeeded()
        do {
            _ = try poller.poll(timeout: max(.zero, clock.now.duration(to: nextTimer())))
        } catch {
            logger.error("worker poll failed", metadata: ["error": "\(String(reflecting: error))"])
            return false
        }
        if poller.ready(0).contains(.readable) {
            for command in mailbox.take() { handle(command) }
        }
        for (entry, index) in polled.enumerated() where poller.ready(entry + 1).contains(.readable) {
            receive(on: index)
        }
        tick(now: clock.now)
        if !received.isEmpty { inlineSince = clock.now }
        return true
    }

    /// Starts the keeper thread, which sends due heartbeats whenever the I/O thread lets go of `gate`
    /// (it does so only while a handler runs on it); signal the semaphore returned to stop it.
    private func keepHeartbeats() -> DispatchSemaphore {
        let stop = DispatchSemaphore(value: 0)
        let reactor = KeeperReference(self), pause = heartbeat.interval / 2
        IOThread.detach(name: "keeper-\(service)") {
            while stop.wait(timeout: .now() + .milliseconds(Int(max(1, pause.milliseconds)))) == .timedOut {
                reactor.reactor.gate.withLockIfAvailable { _ in reactor.reactor.keepAlive(now: reactor.reactor.clock.now) }
            }
        }
        return stop
    }

    /// The keeper, under `gate`: the due heartbeats, unless a handler has run on the I/O thread for
    /// longer than `hungAfter`.
    private func keepAlive(now: ContinuousClock.Instant) {
        if let since = inlineSince, since.duration(to: now) > Self.hungAfter {
            if !keeperGaveUp {
                keeperGaveUp = true
                logger.error("a handler has run on the worker's I/O thread past any deadline; heartbeats stop so the broker hands this process's requests on",
                             metadata: ["service": "\(service)", "seconds": "\(since.duration(to: now).components.seconds)"])
            }
            return
        }
        keeperGaveUp = false
        sendDueHeartbeats(now: now)
    }

    /// Under `gate`: a heartbeat on every connection that has sent nothing for an interval.
    private func sendDueHeartbeats(now: ContinuousClock.Instant) {
        for index in connections.indices where connections[index].socket != nil && connections[index].lastSent.duration(to: now) >= heartbeat.interval {
            send(index, MDP.heartbeat)
        }
    }

    private func handle(_ command: WorkerCommand) {
        switch command {
        case .reply(let index, let generation, let client, let body):
            answer(index, generation: generation, client: client, body: body)
        case .drain:
            draining = true
            requests.finish()
            for index in connections.indices where connections[index].running == 0 { retire(index) }
        case .stop:
            stopping = true
        case .brokers(let endpoints):
            follow(endpoints)
        }
    }

    /// Keeps the connections that the new set of brokers still has at the same capacity, retires the
    /// others once idle, and connects the new ones.
    private func follow(_ endpoints: [String]) {
        var wanted = plan(endpoints)
        for index in connections.indices where !connections[index].gone && !connections[index].retiring {
            if let match = wanted.firstIndex(where: { $0.endpoint == connections[index].endpoint && $0.capacity == connections[index].capacity }) {
                wanted.remove(at: match)
            } else {
                logger.info("a worker connection leaves with its broker's share", metadata: ["broker": "\(connections[index].endpoint)"])
                connections[index].retiring = true
                if connections[index].running == 0 { leave(index) }
            }
        }
        let now = clock.now
        for (endpoint, capacity) in wanted {
            logger.info("a worker connection joins a broker", metadata: ["broker": "\(endpoint)", "capacity": "\(capacity)"])
            let index = Self.place(Connection(endpoint: endpoint, capacity: capacity, lastReceived: now, lastSent: now), in: &connections)
            if !draining && !stopping { connect(index) }
        }
    }

    /// Puts a new connection in the first slot retired for good with no handler still running for it,
    /// else at the end, and returns its index: a process whose brokers come and go for months keeps as
    /// many slots as it ever had connections at once. The slot's generation carries on, so a reply
    /// meant for a socket it held before could never be taken for the new one's.
    static func place(_ connection: Connection, in connections: inout [Connection]) -> Int {
        guard let free = connections.firstIndex(where: { $0.gone && $0.stale == 0 }) else {
            connections.append(connection)
            return connections.count - 1
        }
        var connection = connection
        connection.generation = connections[free].generation
        connections[free] = connection
        return free
    }

    /// Retires a connection for good.
    private func leave(_ index: Int) {
        retire(index)
        connections[index].retryAt = nil
        connections[index].gone = true
    }

    private func receive(on index: Int) {
        while let socket = connections[index].socket {
            let frames: [Frame]?
            do {
                frames = try socket.receive()
            } catch {
                logger.error("worker receive failed", metadata: ["error": "\(String(reflecting: error))"])
                return
            }
            guard let frames else { return }
            connections[index].lastReceived = clock.now
            guard let message = MDP.parseWorker(frames[...]) else {
                logger.warning("worker ignored a malformed message from the broker")
                continue
            }
            if message.command != .disconnect {
                connections[index].refused = 0
                if !connections[index].confirmed {
                    connections[index].confirmed = true
                    health.connectionConfirmed()
                }
            }
            switch message.command {
            case .request:
                let arguments = message.arguments
                guard arguments.count == 3, arguments[1].isEmpty, connections[index].running < connections[index].capacity else {
                    logger.warning("worker ignored an unexpected REQUEST")
                    continue
                }
                guard !draining, !stopping, !connections[index].retiring else {
                    // A connection still busy while draining may be handed more; the broker hands
                    // them on when the connection's DISCONNECT follows its last reply.
                    logger.debug("worker left a request to the broker while draining")
                    continue
                }
                connections[index].running += 1
                nextSerial += 1
                received.append(IncomingRequest(
                    serial: nextSerial, connection: index, generation: connections[index].generation, client: arguments[0], body: arguments[2]))
            case .heartbeat:
                break
            case .disconnect where !connections[index].confirmed:
                // The answer to READY: refused. Trying again at once would spin; back off.
                connections[index].refused += 1
                let refused = connections[index].refused
                let wait = min(Duration.seconds(5), .milliseconds(100 << min(refused - 1, 6)))
                if refused == 1 || refused % 20 == 0 {
                    logger.warning("the broker refused this worker connection's READY (is its key a member, and may it serve the service?)",
                                   metadata: ["service": "\(service)", "refusals": "\(refused)", "retry_in_ms": "\(wait.milliseconds)"])
                }
                dropSocket(index)
                connections[index].retryAt = clock.now + wait
                return
            case .disconnect:
                logger.info("broker asked this worker connection to reconnect")
                replace(index)
                return
            case .ready, .reply:
                logger.warning("worker ignored a \(message.command) command from the broker")
            }
        }
    }

    /// Starts the requests this wake-up received on this thread, where a handler that does not suspend
    /// is answered without waking another thread, until they have taken `inlineBudget`; the rest but
    /// the last start on the global executor, so that a burst of handlers that compute without
    /// suspending runs on every core instead of one after another here.
    private func startReceived() {
        guard !received.isEmpty else { return }
        let last = received.count - 1
        let handOffAfter = clock.now + Self.inlineBudget
        for (position, request) in received.enumerated() {
            let onThisThread = position == last || clock.now < handOffAfter
            // Outside the gate: the handler may compute for long before its first suspension.
            if let reply = requests.start(request, onThisThread: onThisThread) {
                gate.withLock { _ in answer(request.connection, generation: request.generation, client: request.client, body: reply) }
            }
        }
        received.removeAll(keepingCapacity: true)
    }

    /// Sends a handler's reply on its connection, unless the socket was replaced while it ran; then
    /// makes room on the connection for the next request. Once its last handler has answered, a
    /// draining connection retires.
    private func answer(_ index: Int, generation: Int, client: Frame, body: [UInt8]) {
        guard generation == connections[index].generation, connections[index].socket != nil else {
            connections[index].stale -= 1
            logger.info("dropped a reply for a replaced connection; the broker has handed the request on")
            return
        }
        connections[index].running -= 1
        send(index, MDP.reply(clientAddress: client, body: [body]))
        if connections[index].running == 0 {
            if connections[index].retiring { leave(index) } else if draining { retire(index) }
        }
    }

    /// Sends heartbeats where nothing was sent for an interval; replaces connections gone silent.
    private func tick(now: ContinuousClock.Instant) {
        for index in connections.indices where connections[index].socket == nil && !connections[index].gone {
            guard let retryAt = connections[index].retryAt, retryAt <= now else { continue }
            connections[index].retryAt = nil
            if !draining && !stopping { connect(index) }
        }
        for index in connections.indices where connections[index].socket != nil {
            if connections[index].lastReceived.duration(to: now) > heartbeat.expiry {
                logger.warning("broker silent for \(heartbeat.liveness) heartbeats; reconnecting")
                replace(index)
            }
        }
        sendDueHeartbeats(now: now)
    }

    private func nextTimer() -> ContinuousClock.Instant {
        var next = clock.now + heartbeat.interval
        for connection in connections {
            if connection.socket != nil {
                next = min(next, connection.lastSent + heartbeat.interval, connection.lastReceived + heartbeat.expiry)
            } else if let retryAt = connection.retryAt {
                next = min(next, retryAt)
            }
        }
        return next
    }

    /// Opens a fresh socket for a connection and announces the service with READY.
    private func connect(_ index: Int) {
        do {
            let socket = try ZMQSocket(context, type: .dealer, linger: .milliseconds(500))
            try socket.secure(credentials)
            try socket.connect(connections[index].endpoint)
            let now = clock.now
            connections[index].socket = socket
            connections[index].generation += 1
            connections[index].lastReceived = now
            pollerIsStale = true
            send(index, MDP.ready(service: service, capacity: connections[index].capacity))
        } catch {
            logger.error("worker could not open a connection; trying again in a second", metadata: ["error": "\(String(reflecting: error))"])
            connections[index].retryAt = clock.now + .seconds(1)
        }
    }

    /// Drops a connection's socket without telling the broker and, unless the process is draining,
    /// connects again at once: the broker that handed out the requests still running on it has gone
    /// or given up on this socket, so their replies will be dropped, and the new socket takes its
    /// full capacity meanwhile (for that while the process may run more than WORKERS handlers).
    private func replace(_ index: Int) {
        dropSocket(index)
        unconfirm(index)
        if connections[index].retiring {
            connections[index].gone = true
        } else if !draining && !stopping {
            connect(index)
        }
    }

    /// Closes a connection's socket at once; the handlers still running for it become stale.
    private func dropSocket(_ index: Int) {
        connections[index].socket?.close(linger: .zero)
        connections[index].socket = nil
        pollerIsStale = true
        connections[index].stale += connections[index].running
        connections[index].running = 0
    }

    /// Says DISCONNECT and closes, letting queued messages (a last reply) go out first.
    private func retire(_ index: Int) {
        guard connections[index].socket != nil else { return }
        send(index, MDP.disconnect)
        connections[index].socket?.close()
        connections[index].socket = nil
        unconfirm(index)
        pollerIsStale = true
    }

    private func unconfirm(_ index: Int) {
        guard connections[index].confirmed else { return }
        connections[index].confirmed = false
        health.connectionLost()
    }

    private func send(_ index: Int, _ frames: [Frame]) {
        guard let socket = connections[index].socket else { return }
        do {
            // A DEALER refuses only at its high-water mark (1,000 messages), which one request and a
            // heartbeat a second never reach; never block the thread that keeps every connection alive.
            if try socket.send(frames) {
                connections[index].lastSent = clock.now
            } else {
                logger.error("worker connection is not draining; a message to the broker was dropped")
            }
        } catch {
            logger.error("worker send failed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    private func rebuildPollerIfNeeded() {
        guard pollerIsStale else { return }
        poller.removeAll()
        polled.removeAll()
        poller.add(fd: mailbox.descriptor, events: .readable)
        for index in connections.indices {
            guard let socket = connections[index].socket else { continue }
            poller.add(socket, events: .readable)
            polled.append(index)
        }
        pollerIsStale = false
    }
}

/// The reactor as the keeper thread sees it.
///
/// @unchecked Sendable: the keeper touches the reactor only inside `gate.withLockIfAvailable`, and the
/// I/O thread only while holding `gate` too (but for `startReceived`'s handler starts, which touch
/// only `received`, a list the keeper never reads), so the two never use a socket or a field at once,
/// and the mutex's barriers are the full memory barriers ZeroMQ asks for when a socket changes threads.
private final class KeeperReference: @unchecked Sendable {
    let reactor: WorkerReactor
    init(_ reactor: WorkerReactor) { self.reactor = reactor }
}
