import Envelope
import Foundation
import Logging
import Metrics
import NotificationsContract
import PostgresSupport
import ServiceLifecycle

/// How the delivery loop of one instance works through the queue.
public struct PushDeliveryConfiguration: Sendable {
    /// Deliveries claimed per round and sent at once by this instance.
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

    /// The values come from the `PUSH_*` settings, whose declarations hold the defaults.
    public init(concurrency: Int, lease: Duration, retry: RetryPolicy, setupHold: Duration) {
        self.concurrency = concurrency
        self.lease = lease
        self.retry = retry
        self.setupHold = setupHold
    }
}

/// Sends queued deliveries until shutdown: each round claims due deliveries (instances share the
/// queue through row locks and leases), builds each payload with the recipient's unread counts as
/// they are now, sends it with the delivery's id as `apns-id`, and records what APNs said.
public final class PushDelivery: Service {
    private let queue: PushQueue
    /// Signalled when deliveries are queued, so they go out at once.
    private let wakeUp: WakeUp
    private let provider: any PushProvider
    private let topics: [Notifications.App: String]
    /// True for APNs: an app without a bundle id is a setup error, not a push to send.
    private let requiresTopics: Bool
    private let configuration: PushDeliveryConfiguration
    private let logger: Logger
    private let metrics = PushMetrics()

    init(queue: PushQueue, provider: any PushProvider, topics: [Notifications.App: String]?, configuration: PushDeliveryConfiguration, logger: Logger) {
        self.queue = queue
        wakeUp = queue.database.wakeUp(PushQueue.queuedChannel)
        self.provider = provider
        self.topics = topics ?? [:]
        requiresTopics = topics != nil
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        let gauges = { [queue, metrics] in
            let backlog = try await queue.backlog()
            metrics.queued.record(backlog.queued)
            metrics.oldest.record(Double(backlog.oldest?.milliseconds ?? 0) / 1000)
        }
        await LeasedQueue.poll(every: configuration.pollInterval, wakeUp: wakeUp, logger: logger, gauges: (configuration.backlogInterval, gauges)) {
            try await deliverDue()
        }
        await shutdown()
    }

    /// Closes the provider's connections.
    func shutdown() async {
        await provider.shutdown()
    }

    /// One round: claim, send concurrently, record. Returns how many deliveries it handled.
    func deliverDue() async throws -> Int {
        let deliveries = try await queue.claim(limit: configuration.concurrency, lease: configuration.lease)
        await withDiscardingTaskGroup { group in
            for delivery in deliveries { group.addTask { await self.deliver(delivery) } }
        }
        return deliveries.count
    }

    private func deliver(_ delivery: ClaimedDelivery) async {
        var metadata: Logger.Metadata = [
            "apns_id": "\(delivery.id.uuidString.lowercased())", "attempt": "\(delivery.attempts)", "app": "\(delivery.app)",
            "event_type": "\(delivery.content.eventType)",
        ]
        let outcome: DeliveryOutcome
        if delivery.expiresAt <= Date() {
            outcome = .failed(reason: "Expired")
        } else {
            let app = Notifications.App(rawValue: delivery.app)
            guard let bundle = app.flatMap({ topics[$0] }) ?? (requiresTopics ? nil : "localhost.melon.\(delivery.app)") else {
                let reply = ProviderReply(verdict: .setupError(reason: "APNS_TOPICS names no bundle id for \(delivery.app)"))
                await record(await self.outcome(of: reply, for: delivery, metadata: metadata), of: delivery, metadata: metadata)
                return
            }
            do throws(APNsRequestError) {
                let request = try APNsRequest(
                    deviceToken: delivery.token, bundleID: bundle,
                    payload: PushPayload.build(delivery.content, notification: delivery.notification, unread: delivery.unread),
                    expiration: delivery.expiresAt, collapseID: delivery.content.collapseKey, apnsID: delivery.id)
                let started = ContinuousClock.now
                let reply = await provider.send(request, environment: delivery.environment)
                metrics.requestDuration.recordInterval(since: started)
                if let unique = reply.uniqueID { metadata["apns_unique_id"] = "\(unique)" }
                outcome = await self.outcome(of: reply, for: delivery, metadata: metadata)
            } catch {
                outcome = .failed(reason: error.message)
            }
        }
        await record(outcome, of: delivery, metadata: metadata)
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
