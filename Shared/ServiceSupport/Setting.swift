import Envelope
import Foundation

/// One configuration value a process reads, declared once: its key, kind and range, default, whether
/// it is secret, and the help that `--help` and the READMEs' settings tables print.
///
/// Keys are dotted (`broker.endpoint`); the same value comes from the flag `--broker-endpoint` or the
/// environment variable `BROKER_ENDPOINT`, the flag winning.
public struct Setting: Sendable, Hashable {
    /// What the value is.
    public enum Kind: Sendable, Hashable {
        case text
        /// A whole number within the range.
        case integer(ClosedRange<Int>)
        /// A duration in milliseconds within the range.
        case milliseconds(ClosedRange<Int>)

        /// The range of a number, nil for text.
        public var range: ClosedRange<Int>? {
            switch self {
            case .text: nil
            case .integer(let range), .milliseconds(let range): range
            }
        }

        /// `1 to 1,000`, `milliseconds, 10 to 60,000`, or nil for text: for `--help` and the tables.
        public var allowed: String? {
            switch self {
            case .text: nil
            case .integer(let range): "\(Self.number(range.lowerBound)) to \(Self.number(range.upperBound))"
            case .milliseconds(let range): "ms, \(Self.number(range.lowerBound)) to \(Self.number(range.upperBound))"
            }
        }

        static func number(_ value: Int) -> String {
            value == Int.max ? "any" : value.grouped
        }
    }

    /// Who gives the value in a deployment: the compose file, the Kubernetes notes, run.sh and the
    /// test stacks are made from it.
    public enum Provision: Sendable, Hashable {
        /// The default suits every deployment (an operator may still set it).
        case tuning
        /// An operator sets it for a real deployment (SMTP_URL): the compose file passes it through,
        /// the Kubernetes notes put it in the service's Secret; unset, the default runs locally.
        case perDeployment
        /// The service cannot start without it: compose refuses to start without it, and run.sh and
        /// the tests give it `local`.
        case required(LocalValue)
    }

    /// What run.sh and the tests give a required setting.
    public enum LocalValue: Sendable, Hashable {
        /// A new key of 32 random bytes in base64 (`openssl rand -base64 32`): run.sh makes one once
        /// and keeps it under .data/, each test stack makes its own.
        case randomKey
        /// This value.
        case text(String)
    }

    public let key: String
    /// The value when neither flag nor environment gives one; nil means "not set".
    public let defaultValue: String?
    public let help: String
    /// Secrets are never printed, not even their defaults.
    public let isSecret: Bool
    public let kind: Kind
    public let provision: Provision

    public init(_ key: String, default defaultValue: String?, help: String, isSecret: Bool = false, kind: Kind = .text, provision: Provision = .tuning) {
        self.key = key
        self.defaultValue = defaultValue
        self.help = help
        self.isSecret = isSecret
        self.kind = kind
        self.provision = provision
    }

    /// The same setting with another default, for a process whose sensible default differs (`melon`'s
    /// bus is inproc); `ProcessSettings` reads the default of the setting as the process declared it.
    public func defaulting(to value: String) -> Setting {
        Setting(key, default: value, help: help, isSecret: isSecret, kind: kind, provision: provision)
    }

    /// The value run.sh and the test stacks give it, when it is required: a new random key each call.
    public var localValue: String? {
        guard case .required(let local) = provision else { return nil }
        switch local {
        case .randomKey:
            var generator = SystemRandomNumberGenerator()
            return Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
        case .text(let text): return text
        }
    }

    /// `BROKER_ENDPOINT` for `broker.endpoint`.
    public var environmentName: String { key.uppercased().replacingOccurrences(of: ".", with: "_") }

    /// `--broker-endpoint` for `broker.endpoint`.
    public var flag: String { "--" + key.replacingOccurrences(of: ".", with: "-") }
}

// MARK: - Settings every Melon process shares

extension Setting {
    public static let brokerEndpoint = Setting(
        "broker.endpoint", default: "tcp://127.0.0.1:5555",
        help: "Majordomo endpoint: where the broker binds and, without BROKER_ENDPOINTS, where every other process connects.")
    public static let brokerEndpoints = Setting(
        "broker.endpoints", default: "",
        help: "The brokers every other process connects to, separated by commas, or a name that resolves to several (re-resolved every 10 s); empty: BROKER_ENDPOINT alone.")
    public static let logLevel = Setting(
        "log.level", default: "info", help: "trace, debug, info, notice, warning, error or critical.")
    public static let logFormat = Setting("log.format", default: "json", help: "json (one object per line) or text.")
    public static let heartbeatInterval = Setting(
        "heartbeat.interval", default: "1000", help: "Majordomo heartbeat interval in milliseconds.", kind: .milliseconds(10...60_000))
    public static let heartbeatLiveness = Setting(
        "heartbeat.liveness", default: "3", help: "Heartbeats missed before a peer counts as gone.", kind: .integer(1...100))
    public static let busMaxMessageBytes = Setting(
        "bus.max.message.bytes", default: "8388608", help: "Largest envelope in bytes; larger ones are refused as too_large.", kind: .integer(1024...(1 << 30)))
    public static let workers = Setting(
        "workers", default: "16", help: "Requests this service process serves at once.", kind: .integer(1...1024))
    public static let workerConnections = Setting(
        "worker.connections", default: "2",
        help: "Connections to each broker its share of those requests is spread over (WORKERS are split among the brokers); each carries several at once, in fewer, larger writes.",
        kind: .integer(1...1024))
    public static let gracePeriod = Setting(
        "grace.period", default: "20000",
        help: "Milliseconds in-flight requests may take to finish after SIGTERM before they are cancelled.", kind: .milliseconds(0...3_600_000))
}

// MARK: - Probe endpoints

extension Setting {
    public static let healthPort = Setting(
        "health.port", default: nil,
        help: "Port of /healthz, /readyz and /metrics for probes and Prometheus; unset: not served (the gateway serves them on its own port).", kind: .integer(0...65_535))
    public static let healthHost = Setting("health.host", default: "127.0.0.1", help: "Address of the probe endpoints (0.0.0.0 in containers).")
}

// MARK: - Storage

extension Setting {
    public static let databaseURL = Setting(
        "database.url", default: nil,
        help: "postgres://user:password@host:port/database[?sslmode=disable|prefer|require]; a service may override it with <SERVICE>_DATABASE_URL.",
        isSecret: true)
}

// MARK: - Access tokens (the auth service signs them, the gateway verifies them)

extension Setting {
    public static let authIssuer = Setting("auth.issuer", default: "urn:melon:auth", help: "`iss` of access tokens.")
    public static let authAudience = Setting("auth.audience", default: "melon", help: "`aud` of access tokens.")
}
