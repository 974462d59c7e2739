import Logging
import ServiceLifecycle
import ZeroMQ

/// The Majordomo broker (RFC 7/MDP 0.1 with RFC 8/MMI) and the live-event XPUB/XSUB proxy.
///
/// Sockets are bound in `init`, so a taken port fails at start-up and `endpoint` reports the real
/// port after a `tcp://host:*` bind. `run()` serves on a dedicated I/O thread until graceful shutdown
/// or cancellation.
public final class Broker: Service {
    /// The bound client/worker endpoint.
    public let endpoint: String
    /// The bound subscriber (XPUB) and publisher (XSUB) endpoints, when the proxy is on.
    public let eventsEndpoint: String?
    public let eventsPublishEndpoint: String?

    private let mailbox: Mailbox<BrokerCommand>
    private let reactor: Handoff<BrokerReactor>

    public init(configuration: BrokerConfiguration, context: ZMQContext? = nil, logger: Logger = Logger(label: "broker")) throws {
        let mailbox = try Mailbox<BrokerCommand>()
        let reactor = try BrokerReactor(configuration: configuration, context: context ?? ZMQContext(), mailbox: mailbox, logger: logger)
        endpoint = reactor.router.lastEndpoint
        eventsEndpoint = reactor.subscribers?.lastEndpoint
        eventsPublishEndpoint = reactor.publishers?.lastEndpoint
        self.mailbox = mailbox
        self.reactor = Handoff(reactor)
    }

    public func run() async throws {
        guard let reactor = reactor.take() else { return }
        await IOThread.serve(name: "broker", owning: reactor, stop: { self.stop() }) { $0.run() }
    }

    /// Stops serving: workers are told to DISCONNECT, waiting clients get `unavailable`.
    public func stop() {
        mailbox.post(.stop)
    }
}
