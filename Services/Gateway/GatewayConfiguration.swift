import Foundation
import ServiceSupport

/// What the gateway needs to know besides its routes.
public struct GatewayConfiguration: Sendable {
    /// Address and port of the HTTP listener (port 0: any free port, for tests).
    public var host: String
    public var port: Int
    /// The largest request body accepted; larger ones get 413.
    public var maxBodyBytes: Int
    /// The deadline of a request that does not ask for a shorter one (`X-Request-Timeout-Ms`).
    public var defaultDeadline: Duration
    /// The longest deadline a client may ask for.
    public var maxDeadline: Duration
    /// The shortest deadline a client may ask for: less cannot cover even a fast hop through the
    /// broker and a database, so it would only produce 504s.
    public var minDeadline: Duration
    /// The origins browsers may call from (CORS); `["*"]` allows any.
    public var corsAllowedOrigins: [String]
    /// How long a successful service lookup (MMI) is trusted before asking the broker again.
    public var availabilityCacheTTL: Duration
    /// How long /readyz waits for each broker lookup.
    public var readinessTimeout: Duration
    /// Networks of the proxies in front of the gateway, whose `X-Forwarded-For` counts (empty:
    /// clients connect directly).
    public var trustedProxies: [IPNetwork]
    /// A connection with no request in flight for this long is closed.
    public var idleTimeout: Duration
    /// Whether `/healthz`, `/readyz` and `/metrics` are served on the API's port; false when the
    /// gateway serves them on its health port (HEALTH_PORT), away from clients.
    public var probesOnPublicPort = true

    /// The values come from the gateway's settings (`gatewayConfiguration()`), whose declarations
    /// hold the defaults; a test reads them with `ProcessSettings.declared(Setting.gatewaySettings, ...)`.
    public init(
        host: String, port: Int, maxBodyBytes: Int, defaultDeadline: Duration, maxDeadline: Duration, minDeadline: Duration,
        corsAllowedOrigins: [String], availabilityCacheTTL: Duration = .seconds(1), readinessTimeout: Duration = .seconds(1),
        trustedProxies: [IPNetwork], idleTimeout: Duration
    ) {
        self.host = host
        self.port = port
        self.maxBodyBytes = maxBodyBytes
        self.defaultDeadline = defaultDeadline
        self.maxDeadline = maxDeadline
        self.minDeadline = minDeadline
        self.corsAllowedOrigins = corsAllowedOrigins
        self.availabilityCacheTTL = availabilityCacheTTL
        self.readinessTimeout = readinessTimeout
        self.trustedProxies = trustedProxies
        self.idleTimeout = idleTimeout
    }
}
