import Envelope
import Metrics

/// The broker's metrics (swift-metrics; exposed in Prometheus format by ServiceSupport).
enum BrokerMetrics {
    /// Per-service instruments, made once per service.
    struct Service {
        let requests: Counter
        let replies: Counter
        let workers: Gauge
        let queueDepth: Gauge

        init(name: String) {
            let dimensions = [("service", name)]
            requests = Counter(label: "melon_broker_requests_total", dimensions: dimensions)
            replies = Counter(label: "melon_broker_replies_total", dimensions: dimensions)
            workers = Gauge(label: "melon_broker_workers", dimensions: dimensions)
            queueDepth = Gauge(label: "melon_broker_queue_depth", dimensions: dimensions)
        }

        /// Drops the service's series, once the broker has forgotten it.
        func destroy() {
            requests.destroy()
            replies.destroy()
            workers.destroy()
            queueDepth.destroy()
        }
    }

    static let protocolErrors = Counter(label: "melon_broker_protocol_errors_total")
    static let droppedSends = Counter(label: "melon_broker_dropped_sends_total")
    static let redispatches = Counter(label: "melon_broker_redispatches_total")

    static func refusals(member: String, reason: String) -> Counter {
        Counter(label: "melon_broker_refusals_total", dimensions: [("member", member), ("reason", reason)])
    }

    static func errorReplies(_ code: ErrorCode) -> Counter {
        Counter(label: "melon_broker_error_replies_total", dimensions: [("code", code.rawValue)])
    }
}
