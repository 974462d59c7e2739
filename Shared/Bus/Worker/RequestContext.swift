import Envelope
import Foundation
import Logging

/// What a handler knows about the request it serves, and how it calls other services.
public struct RequestContext: Sendable {
    /// The request's envelope attributes (id, type, deadline, idempotency key, auth context).
    public let attributes: RequestAttributes
    /// A logger carrying `request_id` and `trace_id`.
    public var logger: Logger
    /// The bus client for calls to other services, when the process has one.
    public let bus: BusClient?

    public init(attributes: RequestAttributes, logger: Logger, bus: BusClient?) {
        self.attributes = attributes
        self.logger = logger
        self.bus = bus
    }

    /// The absolute deadline of this request, if it has one.
    public var deadline: Date? { attributes.expiryTime }

    /// Options for a call to another service: what is left of this request's deadline, the same trace
    /// (with a new span id) and the same caller.
    public func downstream(idempotencyKey: String? = nil) -> CallOptions {
        var options = CallOptions()
        if let deadline { options.deadline = deadline }
        options.traceParent = attributes.traceParent.flatMap(TraceParent.init)?.child()
        options.idempotencyKey = idempotencyKey
        options.authType = attributes.authType
        options.authID = attributes.authID
        options.authClaims = attributes.authClaims
        options.clientIP = attributes.clientIP
        return options
    }
}
