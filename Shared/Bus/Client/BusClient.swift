import Envelope
import Foundation
import Logging
import ServiceLifecycle
import ZeroMQ

/// Calls bus operations over one or several brokers: a DEALER socket per broker, any number of
/// requests in flight, each with a deadline.
///
/// Run it as a service (in the process's ServiceGroup) before or while calling. Calls are spread over
/// the live brokers; a reply of `unavailable` (a full queue, a broker restarting) is retried with
/// exponential backoff and jitter while the deadline allows; a request held by a broker whose
/// connection is lost goes to another by the I/O thread (`ClientReactor`).
public final class BusClient: Service {
    public let configuration: ClientConfiguration
    private let codec: EnvelopeCodec
    private let mailbox: Mailbox<ClientCommand>
    private let reactor: Handoff<ClientReactor>?
    /// With `serving:`, the registries requests go to in this process, by service: no broker, no
    /// socket (the in-process test harness).
    private let local: [String: OperationRegistry]
    private let logger: Logger
    /// The brokers as configured and as first resolved: while the client runs, a name among them
    /// (`BROKER_ENDPOINTS` naming a headless Service) is resolved again, following brokers that come and go.
    private let brokers: (endpoints: BrokerEndpoints, resolved: [String])

    public init(configuration: ClientConfiguration, context: ZMQContext? = nil, logger: Logger = Logger(label: "bus-client")) throws {
        self.configuration = configuration
        self.codec = EnvelopeCodec(maxBytes: configuration.maxMessageBytes)
        self.logger = logger
        let mailbox = try Mailbox<ClientCommand>()
        self.mailbox = mailbox
        let endpoints = BrokerEndpoints(configuration.endpoint), resolved = endpoints.resolved(using: configuration.resolver)
        self.reactor = Handoff(try ClientReactor(endpoints: resolved, credentials: configuration.credentials, context: context ?? ZMQContext(), mailbox: mailbox, logger: logger))
        brokers = (endpoints, resolved)
        local = [:]
    }

    /// A client whose requests go straight to `registries` in this process, encoded and answered as
    /// over the bus but with no broker or socket: how tests run a service's operations through the
    /// gateway's routing in process. `isAvailable` says whether a registry serves the service.
    public init(serving registries: [OperationRegistry], configuration: ClientConfiguration, logger: Logger = Logger(label: "bus-client")) throws {
        self.configuration = configuration
        self.codec = EnvelopeCodec(maxBytes: configuration.maxMessageBytes)
        self.logger = logger
        mailbox = try Mailbox<ClientCommand>()
        reactor = nil
        brokers = (BrokerEndpoints([String]()), [])
        local = Dictionary(registries.map { ($0.service, $0) }) { first, _ in first }
    }

    public func run() async throws {
        guard let reactor = reactor?.take() else {
            // In process: nothing to serve; wait for the group to end (a graceful shutdown or a cancellation).
            try? await gracefulShutdown()
            return
        }
        let mailbox = mailbox
        let watcher = brokers.endpoints.watch(resolver: configuration.resolver, interval: configuration.resolveInterval, initial: brokers.resolved) {
            mailbox.post(.brokers($0))
        }
        defer { watcher?.stop() }
        await IOThread.serve(name: "bus-client", owning: reactor, stop: { self.stop() }) { $0.run() }
    }

    /// Ends the I/O thread; calls still waiting fail with `unavailable`.
    public func stop() {
        mailbox.post(.stop)
    }

    /// Calls `Op` and returns its response, or throws the `OperationError` it answered with (or
    /// `deadline_exceeded` / `unavailable` raised here).
    public func call<Op: BusOperation>(
        _ operation: Op.Type, _ request: Op.Request, options: CallOptions = CallOptions()
    ) async throws(OperationError) -> Op.Response {
        try mayCall(Op.type)
        let deadline = options.resolvedDeadline()
        let attributes = requestAttributes(type: Op.type, deadline: deadline, options: options)
        let body = try codec.encode(RequestEnvelope(attributes: attributes, data: request))
        let frames = MDP.clientRequest(service: Op.service, body: [body])
        var attempt = 0
        while true {
            let replyFrames = try await send(key: attributes.id, service: Op.service, body: body, frames: frames, deadline: deadline, type: Op.type)
            guard replyFrames.count == 1 else { throw OperationError(.internal, "the \(Op.service) service sent a reply of \(replyFrames.count) frames") }
            let reply = try codec.decode(ReplyEnvelope<Op.Response>.self, from: replyFrames[0])
            switch reply.result {
            case .success(let response):
                return response
            case .failure(let error) where error.code.isRetryable:
                let delay = backoff(attempt: attempt)
                guard Date().adding(delay) < deadline else { throw error }
                logger.debug("retrying after unavailable", metadata: ["type": "\(Op.type)", "attempt": "\(attempt + 1)"])
                do { try await Task.sleep(for: delay) } catch { throw OperationError(.unavailable, "the call was cancelled") }
                attempt += 1
            case .failure(let error):
                throw error
            }
        }
    }

    /// Calls `type` on `service` with `data` that is already JSON, for senders that do not know the
    /// Swift types (the outbox relay, the gateway). Returns the JSON of the reply's `data`, or the
    /// error the service answered with; throws only for failures of the call itself (its deadline
    /// passed, the client stopped, the reply could not be read).
    public func call(service: String, type: String, data: [UInt8], options: CallOptions) async throws(OperationError) -> Result<[UInt8], OperationError> {
        do throws(OperationError) { try mayCall(type) } catch { return .failure(error) }
        let deadline = options.resolvedDeadline()
        let attributes = requestAttributes(type: type, deadline: deadline, options: options)
        let body = try codec.encodeRequest(attributes, data: data)
        let frames = MDP.clientRequest(service: service, body: [body])
        let replyFrames = try await send(key: attributes.id, service: service, body: body, frames: frames, deadline: deadline, type: type)
        guard replyFrames.count == 1 else { throw OperationError(.internal, "the \(service) service sent a reply of \(replyFrames.count) frames") }
        let reply = try codec.decode(ReplyEnvelope<RawJSON>.self, from: replyFrames[0])
        return reply.result.map(\.bytes)
    }

    /// Refuses an operation this client's process did not declare it calls, before it leaves: the
    /// broker refuses it too once the bus runs CurveZMQ, and a test run without it learns here.
    private func mayCall(_ type: String) throws(OperationError) {
        guard let calls = configuration.calls, !calls.contains(type) else { return }
        logger.error("a call to an operation this process does not declare was refused", metadata: ["type": "\(type)"])
        throw OperationError(.forbidden, "\(configuration.processName) may not call \(type): it is not among the operations its contract declares it calls")
    }

    private func requestAttributes(type: String, deadline: Date, options: CallOptions) -> RequestAttributes {
        RequestAttributes(
            id: options.id ?? RandomID.uuid(),
            source: "urn:melon:\(configuration.processName)",
            type: type,
            traceParent: (options.traceParent ?? .random()).description,
            expiryTime: deadline,
            idempotencyKey: options.idempotencyKey,
            authType: options.authType,
            authID: options.authID,
            authClaims: options.authClaims,
            clientIP: options.clientIP
        )
    }

    /// RFC 8 `mmi.service`, asked of every live broker: whether any has at least one worker of
    /// `service` right now.
    public func isAvailable(service: String, timeout: Duration = .seconds(2)) async throws(OperationError) -> Bool {
        if reactor == nil { return local[service] != nil }
        let token = RandomID.uuid()
        let frames = MDP.clientRequest(service: MDP.mmiService, body: [Array(token.utf8), Array(service.utf8)])
        let deadline = Date().adding(timeout)
        let reply = try await send(key: token, frames: frames, deadline: deadline, type: MDP.mmiService, everyBroker: true)
        switch String(decoding: reply.last ?? [], as: UTF8.self) {
        case "200": return true
        case "404": return false
        case let other: throw OperationError(.internal, "the broker answered mmi.service with \(other)")
        }
    }

    private func send(key: String, service: String, body: [UInt8], frames: [Frame], deadline: Date, type: String) async throws(OperationError) -> [Frame] {
        if reactor == nil {
            guard let registry = local[service] else { throw OperationError(.unavailable, "no registry of \(service) in this process") }
            return [await registry.handle(body, logger: logger, bus: self)]
        }
        return try await send(key: key, frames: frames, deadline: deadline, type: type)
    }

    private func send(key: String, frames: [Frame], deadline: Date, type: String, everyBroker: Bool = false) async throws(OperationError) -> [Frame] {
        let instant = ContinuousClock.now + .milliseconds(Int64((deadline.timeIntervalSinceNow * 1000).rounded(.down)))
        let mailbox = mailbox
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<CallOutcome, Never>) in
                let call = PendingCall(key: key, frames: frames, deadline: instant, continuation: continuation, everyBroker: everyBroker)
                if !mailbox.post(.send(call)) { continuation.resume(returning: .stopped) }
            }
        } onCancel: {
            mailbox.post(.cancel(key: key))
        }
        switch outcome {
        case .reply(let body): return body
        case .expired: throw OperationError(.deadlineExceeded, "\(type) did not answer before its deadline")
        case .stopped: throw OperationError(.unavailable, "the bus client stopped before \(type) answered")
        }
    }

    private func backoff(attempt: Int) -> Duration {
        let base = configuration.retryBackoff.milliseconds << min(attempt, 16)
        let cap = min(base, configuration.retryBackoffMax.milliseconds)
        return .milliseconds(Int64.random(in: cap / 2...max(cap / 2, cap)))
    }
}
