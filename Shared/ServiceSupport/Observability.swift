import Logging
import Metrics
import Prometheus
import Synchronization

/// Process-wide logging and metrics set-up. swift-log and swift-metrics accept one bootstrap per
/// process, so these are idempotent: the first call wins (the `melon` process and tests start
/// several components in one process).
public enum Observability {
    private static let state = Mutex<(logging: Bool, metrics: PrometheusCollectorRegistry?)>((false, nil))

    /// Routes swift-log to JSON lines or text on standard error at `level`.
    public static func bootstrapLogging(format: String, level: Logger.Level) {
        let first = state.withLock { state -> Bool in
            defer { state.logging = true }
            return !state.logging
        }
        guard first else { return }
        if format == "text" {
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        } else {
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
        }
    }

    /// Routes swift-metrics to a Prometheus registry and returns it (the same one on every call).
    @discardableResult
    public static func bootstrapMetrics() -> PrometheusCollectorRegistry {
        let (registry, first) = state.withLock { state -> (PrometheusCollectorRegistry, Bool) in
            if let registry = state.metrics { return (registry, false) }
            let registry = PrometheusCollectorRegistry()
            state.metrics = registry
            return (registry, true)
        }
        if first { MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry)) }
        return registry
    }

    /// The Prometheus text exposition of every metric recorded in this process.
    public static func prometheusText() -> String {
        bootstrapMetrics().emitToString()
    }
}
