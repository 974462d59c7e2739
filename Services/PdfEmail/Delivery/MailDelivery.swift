import Foundation
import Logging
import Metrics
import PostgresSupport
import ServiceLifecycle

/// How the delivery consumer of one instance works through the queue.
public struct MailDeliveryConfiguration: Sendable {
    /// Mails claimed per round and sent at once by this instance.
    public var concurrency: Int
    /// The wait after a round that found nothing due.
    public var pollInterval: Duration = .seconds(1)
    /// A claimed mail is not claimed again for this long; it must outlast one SMTP transaction
    /// (the settings make it twice `SMTP_TIMEOUT`, at least 60 s).
    public var lease: Duration
    /// When a mail is tried again after a temporary failure (`MAIL_RETRY_FIRST`, `MAIL_RETRY_MAX`).
    public var retry: RetryPolicy
    /// A mail not delivered this long after it was accepted ends `failed` (`MAIL_MAX_AGE`).
    public var maxAge: Duration
    /// How often the backlog gauges are refreshed.
    public var backlogInterval: Duration = .seconds(2)

    /// The values come from the `MAIL_*` settings, whose declarations hold the defaults.
    public init(concurrency: Int, lease: Duration, retry: RetryPolicy, maxAge: Duration) {
        self.concurrency = concurrency
        self.lease = lease
        self.retry = retry
        self.maxAge = maxAge
    }
}

/// Delivers queued mail until shutdown: each round claims due mails (several instances share the
/// queue through row locks and leases), hands each to the transport, and records the outcome.
/// A permanent refusal (SMTP 5xx) ends in `failed` with the server's reply; a temporary one is
/// retried with exponential backoff until the mail is `maxAge` old, then ends in `failed` too.
public final class MailDelivery: Service {
    private let wakeUp: WakeUp?
    private let repository: any MailRepository
    private let transport: any MailTransport
    private let configuration: MailDeliveryConfiguration
    private let logger: Logger
    private let metrics = MailMetrics()

    /// - Parameter wakeUp: signalled when a mail is queued, so it goes out at once.
    public init(
        repository: any MailRepository, transport: any MailTransport, configuration: MailDeliveryConfiguration, wakeUp: WakeUp? = nil, logger: Logger
    ) {
        self.wakeUp = wakeUp
        self.repository = repository
        self.transport = transport
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        await LeasedQueue.poll(
            every: configuration.pollInterval, wakeUp: wakeUp, logger: logger,
            gauges: (configuration.backlogInterval, { self.metrics.record(try await self.repository.backlog()) })
        ) {
            try await deliverDueMail()
        }
    }

    /// One round: claim, send concurrently, record. Returns how many mails it handled.
    func deliverDueMail() async throws -> Int {
        let mails = try await repository.claimDue(limit: configuration.concurrency, lease: configuration.lease)
        await withDiscardingTaskGroup { group in
            for mail in mails { group.addTask { await self.deliver(mail) } }
        }
        return mails.count
    }

    private func deliver(_ mail: ClaimedMail) async {
        let started = ContinuousClock.now
        let result: Result<Void, MailDeliveryError>
        do throws(MailDeliveryError) {
            try await transport.send(mail.message, from: mail.sender, to: mail.recipients)
            result = .success(())
        } catch {
            result = .failure(error)
        }
        metrics.duration.recordMilliseconds(started.duration(to: .now).milliseconds)
        let outcome = Self.outcome(of: result, for: mail, configuration: configuration)
        let metadata: Logger.Metadata = ["mail_id": "\(mail.id.uuidString.lowercased())", "attempt": "\(mail.attempts)", "recipients": "\(mail.recipients.count)"]
        // Not recorded: the lease runs out and the mail is tried again, then perhaps sent twice, with the same Message-ID.
        guard await LeasedQueue.recorded(logger: logger, metadata: metadata, { try await repository.record(outcome, of: mail) }) else { return }
        switch outcome {
        case .sent:
            metrics.sent.increment()
            logger.info("mail sent", metadata: metadata)
        case .failed(let reply):
            metrics.failed.increment()
            logger.warning("mail failed", metadata: metadata.merging(["reply": "\(reply)"]) { $1 })
        case .retry(let delay, let reply):
            metrics.retries.increment()
            logger.info("mail will be retried", metadata: metadata.merging(["reply": "\(reply)", "delay_ms": "\(delay.milliseconds)"]) { $1 })
        }
    }

    /// What one attempt's result means for the mail.
    static func outcome(of result: Result<Void, MailDeliveryError>, for mail: ClaimedMail, configuration: MailDeliveryConfiguration) -> DeliveryOutcome {
        switch result {
        case .success:
            return .sent
        case .failure(let error) where error.permanent:
            return .failed(reply: error.reply)
        case .failure(let error):
            let delay = configuration.retry.delay(afterAttempt: mail.attempts)
            guard mail.age + delay <= configuration.maxAge else {
                return .failed(reply: "not delivered within \(configuration.maxAge.milliseconds / 1000) s after \(mail.attempts) attempts; last: \(error.reply)")
            }
            return .retry(after: delay, reply: error.reply)
        }
    }
}

/// The delivery figures operators watch.
struct MailMetrics: Sendable {
    let sent = Counter(label: "melon_mail_sent_total")
    let failed = Counter(label: "melon_mail_failed_total")
    let retries = Counter(label: "melon_mail_retries_total")
    let duration = Timer(label: "melon_mail_delivery_duration_seconds")
    let queued = Gauge(label: "melon_mail_queued")
    let oldestAge = Gauge(label: "melon_mail_oldest_queued_age_seconds")

    func record(_ backlog: Backlog) {
        queued.record(backlog.queued)
        oldestAge.record(Double(backlog.oldestAge?.milliseconds ?? 0) / 1000)
    }
}
