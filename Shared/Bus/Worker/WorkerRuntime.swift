import Envelope
import Logging
import ServiceLifecycle
import ZeroMQ

/// Serves a service's operations over the bus: WORKERS Majordomo connections from one process, one
/// I/O thread for all of them, and for each connection a lane (a child task of this service's task
/// group) that handles its requests one at a time.
///
/// Graceful shutdown (SIGTERM through ServiceGroup): idle connections DISCONNECT at once, so the
/// broker sends them nothing more; in-flight requests get `gracePeriod` to finish and reply; then
/// every connection DISCONNECTs. Anything cut off there is handed to another worker by the broker.
public final class WorkerRuntime: Service {
    public let registry: OperationRegistry
    public let configuration: WorkerConfiguration
    /// Whether the broker is in touch, for the readiness probe.
    public let health = WorkerHealth()
    private let bus: BusClient?
    private let logger: Logger
    private let context: ZMQContext

    /// - Parameters:
    ///   - bus: the client handlers use to call other services, if any.
    public init(
        registry: OperationRegistry, configuration: WorkerConfiguration, bus: BusClient? = nil,
        context: ZMQContext? = nil, logger: Logger
    ) throws {
        self.registry = registry
        self.configuration = configuration
        self.bus = bus
        self.logger = logger
        self.context = try context ?? ZMQContext()
    }

    public func run() async throws {
        let mailbox = try Mailbox<WorkerCommand>()
        let lanes = LaneBoard(lanes: configuration.workers)
        let (drainStarted, startDrain) = AsyncStream.makeStream(of: Never.self)
        let reactor = WorkerReactor(
            service: registry.service, endpoint: configuration.endpoint, credentials: configuration.credentials, count: configuration.workers,
            heartbeat: configuration.heartbeat, context: context, mailbox: mailbox, lanes: lanes, health: health, logger: logger)
        logger.info("worker runtime starting", metadata: [
            "service": "\(registry.service)", "workers": "\(configuration.workers)", "broker": "\(configuration.endpoint)",
        ])
        async let thread: Void = IOThread.run(name: "worker-\(registry.service)", owning: reactor) { $0.run() }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await serve(lanes, mailbox: mailbox, drainStarted: drainStarted)
            } onGracefulShutdown: {
                mailbox.post(.drain)
                startDrain.finish()
            }
        } onCancel: {
            mailbox.post(.stop)
        }
        mailbox.post(.stop)
        await thread
        logger.info("worker runtime stopped", metadata: ["service": "\(registry.service)"])
    }

    /// Runs one lane per connection until the reactor stops delivering requests, then waits for the
    /// ones in flight, at most `gracePeriod` after draining began.
    private func serve(_ lanes: LaneBoard, mailbox: Mailbox<WorkerCommand>, drainStarted: AsyncStream<Never>) async {
        let registry = registry, bus = bus, logger = logger, grace = configuration.gracePeriod
        await withTaskGroup(of: Void.self) { outer in
            outer.addTask {
                await withDiscardingTaskGroup { group in
                    for lane in 0..<self.configuration.workers {
                        group.addTask {
                            while let request = await lanes.next(lane) {
                                let reply = await registry.handle(request.body, logger: logger, bus: bus)
                                mailbox.post(.reply(
                                    connection: request.connection, generation: request.generation, client: request.client, body: reply))
                            }
                        }
                    }
                }
            }
            outer.addTask {
                for await _ in drainStarted {}
                guard !Task.isCancelled else { return }
                try? await Task.sleep(for: grace)
                if !Task.isCancelled { logger.warning("grace period over; cancelling requests still running") }
            }
            // Whichever ends first (the handlers, or the grace period) ends the other.
            await outer.next()
            outer.cancelAll()
        }
    }
}
