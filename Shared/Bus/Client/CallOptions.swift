import Envelope
import Foundation

/// Per-call settings of `BusClient.call`.
public struct CallOptions: Sendable {
    /// The absolute deadline; when nil, `timeout` from now.
    public var deadline: Date?
    /// Used when `deadline` is nil.
    public var timeout: Duration = .seconds(10)
    /// The caller's trace; a new trace is started when nil.
    public var traceParent: TraceParent?
    /// Required for mutating operations: the same key makes a retried request return the first result.
    public var idempotencyKey: String?
    public var authType: String?
    public var authID: String?
    public var authClaims: String?
    /// The client's IP address, as the gateway saw it.
    public var clientIP: String?
    /// The request id; generated when nil. Retries of one call always reuse it.
    public var id: String?

    public init(timeout: Duration = .seconds(10), idempotencyKey: String? = nil) {
        self.timeout = timeout
        self.idempotencyKey = idempotencyKey
    }

    /// The absolute deadline this call works to.
    public func resolvedDeadline(now: Date = Date()) -> Date {
        deadline ?? now.adding(timeout)
    }
}
