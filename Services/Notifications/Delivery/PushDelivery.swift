import Envelope
import Foundation
import Logging
import Metrics
import NotificationsContract
import PostgresSupport
import ServiceLifecycle
import Synchronization

/// How the delivery loop of one instance works through the queue.
public struct PushDeliveryConfiguration: Sendable {
    /// Deliveries this instance sends at once to each APNs host (production, sandbox).
    public var concurrency: Int
    public var pollInterval: Duration = .seconds(1)
    /// A claimed delivery is not claimed again for this long; it must outlast one APNs request.
    public var lease: Duration
    public var retry: RetryPolicy
    /// How long an app's pushes wait after APNs refused our setup for it.
    public var setupHold: Duration
    /// The wait after APNs said we renew the provider token too often.
    public var tokenUpdateWait: Duration = .seconds(60)
    public var backlogInterval: Duration = .seconds(2)
    /// How long sends under way may finish after shutdown begins; then they are cancelled (and sent
    /// again later, by this instance after a restart or by another, with the same apns-id).
    public var drain: Duration = .seconds(2)
    /// How long a host that did not answer is left alone at first; doubled per failure up to `hostBackoffMax`.
    public var hostBackoff: Duration = .seconds(1)
    public var hostBackoffMax: Duration = .seconds(60)

    /// The values come from the `PUSH_*` settings, whose declarations hold the defaults.
    public init(concurrency: Int, lease: Duration, retry: RetryPolicy, setupHold: Duration) {
        self.concurrency = concurrency
        self.lease = lease
        self.retry = retry
        self.setupHold = setupHold
    }
}

/// Sends queued deliveries until shutdown. Each APNs host (production, sandbox) has its own lane:
/// it claims due deliveries of its devices (instances share the queue through row locks and leases)
/// as sends finish, keeping up to `concurrency` under way, so a slow device holds one slot and a
/// host that does not answer holds only its own lane, which then leaves the host alone for a
/// while. Each payload is built with the recipient's unread counts as they are now and sent with
/// the delivery's id as `apns-id`; what APNs said is recorded.
public final class PushDelivery: Service {
    private let queue: PushQueue
    private let provider: any PushProvider
    private let topics: [Notifications.App: String]
    private let configuration: PushDeliveryConfiguration
    private let logger: Logger
    private let metrics = PushMetrics()
    /// One per host, signalled when deliveries are queued or a send of the lane finished.
    private let lanes: [Notifications.Devices.Environment: Lane]

    /// `topics` names every app's bundle id; nil for a provider that needs none (the push log).
    init(queue: PushQueue, provider: any PushProvider, topics: [Notifications.App: String]?, configuration: PushDeliveryConfiguration, logger: Logger) {
        self.queue = queue
        self.provider = provider
        self.topics = topics ?? Dictionary(uniqueKeysWithValues: Notifications.App.allCases.map { ($0, "localhost.melon.\($0.rawValue)") })
        self.configuration = configuration
        self.logger = logger
        let lanes = Dictionary(uniqueKeysWithValues: Notifications.Devices.Environment.allCases.map {
            ($0, Lane(environment: $0, backoff: RetryPolicy(first: configuration.hostBackoff, maximum: configuration.hostBackoffMax)))
        })
        self.lanes = lanes
        queue.database.onNotice(PushQueue.queuedChannel) { _ in for lane in lanes.values { lane.wakeUp.signal() } }
    }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            for lane in lanes.values { group.addTask { await self.run(lane) } }
            group.addTask { await self.refreshGauges() }
        }
        await shutdown()
    }

    /// Closes the provider's connections.
    func shutdown() async {
        await provider.shutdown()
    }

    /// One lane until shutdown, then its sends under way get `drain` to finish.
    private func run(_ lane: Lane) async {
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled, !Task.isShuttingDownGracefully {
                let free = configuration.concurrency - lane.inFlight
                var claimed = 0
                if free > 0, lane.resting == nil {
                    do {
                        let deliveries = try await queue.claim(limit: free, lease: configuration.lease, environment: lane.environment)
                        claimed = deliveries.count
                        for delivery in deliveries {
                            lane.started()
                            group.addTask {
                                await self.deliver(delivery, in: lane)
                                lane.finished()
                            }
                        }
                    } catch {
                        logger.error("queue round failed", metadata: ["error": "\(String(reflecting: error))", "host": "\(lane.environment.rawValue)"])
                    }
                }
                // More may be due when the claim filled every free slot; else wait for news.
                if claimed == 0 || claimed < free || lane.inFlight >= configuration.concurrency {
                    let wait = min(configuration.pollInterval, lane.resting ?? configuration.pollInterval)
                    await cancelWhenGracefulShutdown { await lane.wakeUp.wait(upTo: wait) }
                }
            }
            let drain = ContinuousClock.now + configuration.drain
            while lane.inFlight > 0, !Task.isCancelled, ContinuousClock.now < drain { try? await Task.sleep(for: .milliseconds(20)) }
            group.cancelAll()
        }
    }

    private func refreshGauges() async {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                let backlog = try await queue.backlog()
                metrics.queued.record(backlog.queued)
                metrics.oldest.record(Double(backlog.oldest?.milliseconds ?? 0) / 1000)
            } catch {
                logger.warning("could not read the push backlog", metadata: ["error": "\(String(reflecting: error))"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.configuration.backlogInterval) }
        }
    }

    /// One round for tests: claims what is due for every host, sends it all and records it. Returns how many deliveries it handled.
    func deliverDue() async throws -> Int {
        var handled = 0
        for lane in lanes.values.sorted(by: { $0.environment.rawValue < $1.environment.rawValue }) {
            let deliveries = try await queue.claim(limit: configuration.concurrency, lease: configuration.lease, environment: lane.environment)
            await withDiscardingTaskGroup { group in
                for delivery in deliveries { group.addTask { await self.deliver(delivery, in: lane) } }
            }
            handled += deliveries.count
        }
        return handled
    }

    private func deliver(_ delivery: ClaimedDelivery, in lane: Lane) async {
        var metadata: Logger.Metadata = [
            "apns_id": "\(delivery.id.uuidString.lowercased())", "attempt": "\(delivery.attempts)", "app": "\(delivery.app)",
            "event_type": "\(delivery.content.eventType)", "host": "\(lane.environment.rawValue)",
        ]
        let outcome: DeliveryOutcome
        if delivery.expiresAt <= Date() {
            outcome = .failed(reason: "Expired")
        } else if let bundle = Notifications.App(rawValue: delivery.app).flatMap({ topics[$0] }) {
            do throws(APNsRequestError) {
                // The push was checked to fit with its own category's count; more tabs may not, and are left out then.
                let request = try APNsRequest.of(delivery, bundleID: bundle)
                let started = ContinuousClock.now
                let reply = await provider.send(request, environment: delivery.environment)
                if Task.isCancelled, !reply.answered {
                    // Shutdown cut the send short: the delivery is tried again when its lease ends, with the same apns-id.
                    logger.notice("push left to its lease at shutdown", metadata: metadata)
                    return
                }
                metrics.requestDuration.recordInterval(since: started)
                if reply.answered {
                    lane.answered()
                } else if let rest = lane.unanswered() {
                    logger.warning("an APNs host did not answer: its pushes wait", metadata: metadata.merging(["rest_ms": "\(rest.milliseconds)"]) { $1 })
                }
                if let unique = reply.uniqueID { metadata["apns_unique_id"] = "\(unique)" }
                outcome = await self.outcome(of: reply, for: delivery, metadata: metadata)
            } catch {
                outcome = .failed(reason: error.message)
            }
        } else {
            outcome = .failed(reason: "no app \(delivery.app)")
        }
        // Recorded even when shutdown cancels the sends: APNs' answer must not be lost.
        await Task { await record(outcome, of: delivery, metadata: metadata) }.value
    }

    private func record(_ outcome: DeliveryOutcome, of delivery: ClaimedDelivery, metadata: Logger.Metadata) async {
        guard await LeasedQueue.recorded(logger: logger, metadata: metadata, { try await queue.record(outcome, of: delivery) }) else { return }
        switch outcome {
        case .sent:
            metrics.sent.increment()
            metrics.enqueueToAPNs.recordMilliseconds(delivery.age.milliseconds)
            logger.info("push sent", metadata: metadata)
        case .failed(let reason):
            Counter(label: "melon_push_failed_total", dimensions: [("reason", reason.count <= 40 ? reason : "other")]).increment()
            logger.warning("push failed", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
        case .pruned(let reason):
            Counter(label: "melon_push_failed_total", dimensions: [("reason", reason)]).increment()
            metrics.pruned.increment()
            logger.notice("device token gone: device removed", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
        case .retry(let delay, let reason):
            metrics.retries.increment()
            logger.info("push will be retried", metadata: metadata.merging(["reason": "\(reason)", "delay_ms": "\(delay.milliseconds)"]) { $1 })
        }
    }

    /// What APNs's reply means for the delivery (and, for setup errors, for the app's other pushes).
    private func outcome(of reply: ProviderReply, for delivery: ClaimedDelivery, metadata: Logger.Metadata) async -> DeliveryOutcome {
        switch reply.verdict {
        case .accepted:
            return .sent
        case .tokenGone(let reason, let since):
            // A device that registered again after Apple's timestamp has a fresh token: keep it.
            if let since, delivery.registeredAt > since { return .failed(reason: reason) }
            return .pruned(reason: reason)
        case .tokenRejected(let reason):
            let host = reply.hostEnvironment ?? delivery.environment
            return host == delivery.environment ? .pruned(reason: reason) : .failed(reason: "\(reason) from the \(host.rawValue) host")
        case .renewProviderToken:
            return retry(delivery, reason: "ExpiredProviderToken")
        case .setupError(let reason):
            let until = Date().adding(configuration.setupHold)
            Counter(label: "melon_push_setup_errors_total", dimensions: [("app", delivery.app), ("reason", reason)]).increment()
            logger.critical("APNs refused our setup for an app: its pushes wait", metadata: metadata.merging([
                "reason": "\(reason)", "held_until": "\(until.formatted(.iso8601))",
            ]) { $1 })
            try? await queue.hold(app: delivery.app, until: until, reason: reason)
            return .retry(after: configuration.setupHold, reason: reason)
        case .tooManyTokenUpdates:
            logger.error("APNs says the provider token is renewed too often: a bug; waiting", metadata: metadata)
            return .retry(after: configuration.tokenUpdateWait, reason: "TooManyProviderTokenUpdates")
        case .retry(let reason):
            return retry(delivery, reason: reason)
        case .failed(let reason):
            return .failed(reason: reason)
        }
    }

    private func retry(_ delivery: ClaimedDelivery, reason: String) -> DeliveryOutcome {
        let delay = configuration.retry.delay(afterAttempt: delivery.attempts)
        guard Date().adding(delay) < delivery.expiresAt else {
            return .failed(reason: "expired after \(delivery.attempts) attempts; last: \(reason)")
        }
        return .retry(after: delay, reason: reason)
    }
}

extension APNsRequest {
    /// The request for `delivery`, its tabs left out when they make it too large.
    fileprivate static func of(_ delivery: ClaimedDelivery, bundleID: String) throws(APNsRequestError) -> APNsRequest {
        func request(tabs: Bool) throws(APNsRequestError) -> APNsRequest {
            try APNsRequest(
                deviceToken: delivery.token, bundleID: bundleID,
                payload: PushPayload.build(delivery.content, notification: delivery.notification, unread: delivery.unread, tabs: tabs),
                expiration: delivery.expiresAt, collapseID: delivery.content.collapseKey, apnsID: delivery.id,
                truncatingBody: delivery.content.truncateBody == true)
        }
        do throws(APNsRequestError) {
            return try request(tabs: true)
        } catch {
            return try request(tabs: false)
        }
    }
}

/// One APNs host's share of the loop: the sends under way, and the rest it gets after it did not answer.
final class Lane: Sendable {
    let environment: Notifications.Devices.Environment
    let wakeUp = WakeUp()
    private let backoff: RetryPolicy
    private let state = Mutex(State())

    private struct State {
        var inFlight = 0
        /// Sends in a row the host did not answer, and until when the lane claims nothing.
        var unanswered = 0
        var restUntil: ContinuousClock.Instant?
    }

    init(environment: Notifications.Devices.Environment, backoff: RetryPolicy) {
        self.environment = environment
        self.backoff = backoff
    }

    var inFlight: Int { state.withLock { $0.inFlight } }

    /// How much longer the lane rests; nil when it does not.
    var resting: Duration? {
        state.withLock { state in
            guard let until = state.restUntil, until > .now else { return nil }
            return ContinuousClock.now.duration(to: until)
        }
    }

    func started() { state.withLock { $0.inFlight += 1 } }

    func finished() {
        state.withLock { $0.inFlight -= 1 }
        wakeUp.signal()
    }

    func answered() { state.withLock { $0.unanswered = 0 } }

    /// After a send the host did not answer: the lane rests (longer each time in a row). Returns the
    /// rest when this send started it.
    func unanswered() -> Duration? {
        state.withLock { state in
            if let until = state.restUntil, until > .now { return nil }
            state.unanswered += 1
            let rest = backoff.delay(afterAttempt: state.unanswered)
            state.restUntil = .now + rest
            return rest
        }
    }
}

/// The figures operators watch.
struct PushMetrics: Sendable {
    let sent = Counter(label: "melon_push_sent_total")
    let retries = Counter(label: "melon_push_retries_total")
    let pruned = Counter(label: "melon_push_pruned_tokens_total")
    let enqueueToAPNs = Timer(label: "melon_push_enqueue_to_apns_seconds")
    let requestDuration = Timer(label: "melon_push_request_duration_seconds")
    let queued = Gauge(label: "melon_push_queued")
    let oldest = Gauge(label: "melon_push_oldest_queued_age_seconds")
}
