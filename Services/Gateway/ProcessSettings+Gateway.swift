import AuthContract
import Bus
import Contracts
import Foundation
import Logging
import ServiceSupport
import ZeroMQ

extension Setting {
    public static let httpHost = Setting("http.host", default: "127.0.0.1", help: "Address the gateway listens on (0.0.0.0 in containers).")
    public static let httpPort = Setting("http.port", default: "8080", help: "Port of the HTTP API.", kind: .integer(0...65_535))
    public static let httpMaxBodyBytes = Setting("http.max.body.bytes", default: "1048576", help: "Largest request body; larger ones get 413.", kind: .integer(1024...(64 << 20)))
    public static let requestDeadline = Setting(
        "request.deadline", default: "10000", help: "Milliseconds a request may take unless it asks for less (X-Request-Timeout-Ms).", kind: .milliseconds(10...600_000))
    public static let requestMinDeadline = Setting(
        "request.min.deadline", default: "100", help: "The shortest deadline, in milliseconds, a client may ask for.", kind: .milliseconds(10...600_000))
    public static let requestMaxDeadline = Setting(
        "request.max.deadline", default: "60000", help: "The longest deadline, in milliseconds, a client may ask for.", kind: .milliseconds(10...600_000))
    public static let corsAllowedOrigins = Setting(
        "cors.allowed.origins", default: "*",
        help: "Comma-separated origins browsers may call from (https://app.example.org,https://admin.example.org), or * for any.")
    public static let httpIdleTimeout = Setting(
        "http.idle.timeout", default: "60000",
        help: "Milliseconds a client connection may stay open with no request before it is closed.", kind: .milliseconds(100...3_600_000))
    public static let authKeysMaxAge = Setting(
        "auth.keys.max.age", default: "3600000",
        help: "Milliseconds the gateway trusts the token keys and the ended sessions it read from auth while it cannot read them again; then signed-in requests answer 503.",
        kind: .milliseconds(1_000...86_400_000))
    public static let authRevocationsResync = Setting(
        "auth.revocations.resync", default: "60000",
        help: "Milliseconds between reads of the ended sessions from auth, besides the live events (EVENTS_ENDPOINT) that announce each end at once.",
        kind: .milliseconds(1_000...3_600_000))
    public static let trustedProxies = Setting(
        "trusted.proxies", default: "",
        help: "Comma-separated networks of the proxies in front of the gateway (10.0.0.0/8,fd00::/8): X-Forwarded-For counts only from a peer inside one, read from the right up to the first address outside them. Empty: the peer is the client.")

    /// Everything the `gateway` process reads.
    public static let gatewaySettings: [Setting] = [
        .brokerEndpoint, .brokerEndpoints, .busMaxMessageBytes, .httpHost, .httpPort, .httpMaxBodyBytes, .requestDeadline,
        .requestMinDeadline, .requestMaxDeadline, .corsAllowedOrigins, .trustedProxies, .httpIdleTimeout, .authIssuer, .authAudience, .authKeysMaxAge,
        .eventsEndpoint, .authRevocationsResync, .busCurve, .busSecretKey, .busBrokerKey, .healthPort, .healthHost,
    ]
}

extension ProcessSettings {
    /// Verifies access tokens against the auth service's keys, fetched over `bus`, refusing those of
    /// ended sessions, on `clock`. Run the authenticator's `revocations` in the process's ServiceGroup.
    public func tokenAuthenticator(bus: BusClient, context: ZMQContext? = nil, logger: Logger, clock: ServiceClock = .system) throws -> JWKSAuthenticator {
        let revocations = SessionRevocations(
            bus: bus, subscriber: try eventSubscriber(topics: [Auth.sessionsRevokedEvent], context: context, logger: logger),
            resyncInterval: try milliseconds(.authRevocationsResync), maxAge: try milliseconds(.authKeysMaxAge), logger: logger, clock: clock)
        return JWKSAuthenticator(
            bus: bus, revocations: revocations, audience: try requiredString(.authAudience), issuer: try requiredString(.authIssuer), logger: logger,
            maxKeyAge: try milliseconds(.authKeysMaxAge), clock: clock)
    }

    /// The live streams' sockets of `services`, fed by the broker's proxy (EVENTS_ENDPOINT; without
    /// it, sockets catch up on each renewal only). Run it in the process's ServiceGroup.
    public func liveSockets(services: [any ServiceContract.Type], bus: BusClient, authenticator: (any RequestAuthenticator)?, context: ZMQContext? = nil,
                            logger: Logger) throws -> LiveSockets {
        let topics = LiveSockets.topics(of: services)
        return LiveSockets(
            services: services, bus: bus, subscriber: topics.isEmpty ? nil : try eventSubscriber(topics: topics, context: context, logger: logger),
            authenticator: authenticator, logger: logger)
    }

    /// The gateway's configuration from its settings.
    public func gatewayConfiguration() throws -> GatewayConfiguration {
        let configuration = GatewayConfiguration(
            host: try requiredString(.httpHost),
            port: try int(.httpPort),
            maxBodyBytes: try int(.httpMaxBodyBytes),
            defaultDeadline: try milliseconds(.requestDeadline),
            maxDeadline: try milliseconds(.requestMaxDeadline),
            minDeadline: try milliseconds(.requestMinDeadline),
            corsAllowedOrigins: try requiredString(.corsAllowedOrigins).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
            trustedProxies: try networks(.trustedProxies),
            idleTimeout: try milliseconds(.httpIdleTimeout))
        guard configuration.minDeadline <= configuration.maxDeadline else {
            throw InvalidValue(setting: .requestMinDeadline, value: "\(configuration.minDeadline.milliseconds)", expected: "at most REQUEST_MAX_DEADLINE")
        }
        return configuration
    }
}
