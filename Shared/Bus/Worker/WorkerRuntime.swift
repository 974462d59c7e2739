import Envelope
import Logging
import ServiceLifecycle
import ZeroMQ

/// Serves a service's operations over the bus: WORKERS requests at once over WORKER_CONNECTIONS
/// Majordomo connections from one process, one I/O thread for all of them, and each request in a
/// task of its own that starts on that thread (`RequestTasks`).
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
        let registry = registry, bus = bus, logger = logger
        let requests = RequestTasks(mailbox: mailbox) { await registry.handle($0.body, logger: logger, bus: bus) }
        let (drainStarted, startDrain) = AsyncStream.makeStream(of: Never.self)
        let configuration = configuration
        let endpoints = BrokerEndpoints(configuration.endpoint), brokers = endpoints.resolved(using: configuration.resolver)
        let reactor = WorkerReactor(
            service: registry.service, endpoints: brokers, plan: { configuration.plan($0) }, credentials: configuration.credentials,
            heartbeat: configuration.heartbeat, context: context, mailbox: mailbox, requests: requests, health: health, logger: logger)
        logger.info("worker runtime starting", metadata: [
            "service": "\(registry.service)", "workers": "\(configuration.workers)", "connections": "\(configuration.plan(brokers).count)", "brokers": "\(brokers.joined(separator: ","))",
        ])
        // Brokers behind a name come and go: follow them.
        let watcher = endpoints.watch(resolver: configuration.resolver, interval: configuration.resolveInterval, initial: brokers) {
            mailbox.post(.brokers($0))
        }
        defer { watcher?.stop() }
        // Handlers start on this thread: give it the stack a thread of the global executor has.
        async let thread: Void = IOThread.run(name: "worker-\(registry.service)", owning: reactor, stackSize: 8 << 20) { $0.run() }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await serve(requests, drainStarted: drainStarted)
            } onGracefulShutdown: {
                mailbox.post(.drain)
                startDrain.finish()
            }
        } onCancel: {
            mailbox.post(.stop)
            requests.cancelAll()
        }
        mailbox.post(.stop)
        await thread
        logger.info("worker runtime stopped", metadata: ["service": "\(registry.service)"])
    }

    /// Waits until the reactor stops taking requests and the ones in flight have answered; handlers
    /// still running `gracePeriod` after draining began are cancelled (they answer `unavailable`).
    private func serve(_ requests: RequestTasks, drainStarted: AsyncStream<Never>) async {
        let logger = logger, grace = configuration.gracePeriod
        await withTaskGroup(of: Void.self) { timer in
            timer.addTask {
                for await _ in drainStarted {}
                guard !Task.isCancelled else { return }
                try? await Task.sleep(for: grace)
                guard !Task.isCancelled else { return }
                logger.warning("grace period over; cancelling requests still running")
                requests.cancelAll()
            }
            await requests.finishedAndIdle()
            timer.cancelAll()
        }
    }
}
