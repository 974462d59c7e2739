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

    /// Options for a call to another service while serving this request: what is left of its
    /// deadline (at most `timeout`) and the same trace, with a new span. Never the caller: a service
    /// calls as itself, and the broker refuses a service's request that speaks for a user (only the
    /// gateway may). To act on a user's behalf, name the account in the callee's request (as
    /// `pdf-email.mail.send.v1` takes `account`); the callee may trust it because only the services
    /// whose contracts declare the call may send it (`BusPolicy`).
    public func onwards(timeout: Duration? = nil, idempotencyKey: String? = nil) -> CallOptions {
        var options = timeout.map { CallOptions(timeout: $0) } ?? CallOptions()
        if let deadline { options.deadline = timeout == nil ? deadline : min(deadline, options.resolvedDeadline()) }
        options.traceParent = attributes.traceParent.flatMap(TraceParent.init)?.child()
        options.idempotencyKey = idempotencyKey
        return options
    }
}
