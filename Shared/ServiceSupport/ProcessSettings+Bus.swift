import Foundation
import Bus
import Logging
import ZeroMQ

extension ProcessSettings {
    /// The heartbeat settings shared by broker and workers.
    public func heartbeat() throws -> Heartbeat {
        Heartbeat(
            interval: try milliseconds(.heartbeatInterval),
            liveness: try int(.heartbeatLiveness))
    }

    /// The brokers this process connects to: BROKER_ENDPOINTS, or BROKER_ENDPOINT when it is empty.
    public func brokers() throws -> String {
        if let list = string(.brokerEndpoints), !list.trimmingCharacters(in: .whitespaces).isEmpty {
            guard BrokerEndpoints(list).isValid else {
                throw InvalidValue(setting: .brokerEndpoints, value: list, expected: "broker endpoints separated by commas, each tcp://host:port, such as tcp://broker-0:5555,tcp://broker-1:5555")
            }
            return list
        }
        return try requiredString(.brokerEndpoint)
    }

    /// The worker runtime settings of a service process.
    public func workerConfiguration() throws -> WorkerConfiguration {
        WorkerConfiguration(
            endpoint: try brokers(),
            workers: try int(.workers),
            connections: try int(.workerConnections),
            heartbeat: try heartbeat(),
            gracePeriod: try milliseconds(.gracePeriod),
            credentials: try busCredentials())
    }

    /// The bus client settings of this process.
    public func clientConfiguration() throws -> ClientConfiguration {
        ClientConfiguration(
            endpoint: try brokers(),
            processName: process,
            maxMessageBytes: try int(.busMaxMessageBytes),
            credentials: try busCredentials())
    }

    /// A publisher of live events to the broker's proxy (EVENTS_PUBLISH_ENDPOINT); nil when the
    /// setting is empty, which leaves live events off.
    public func eventPublisher(context: ZMQContext? = nil, logger: Logger) throws -> EventPublisher? {
        guard let endpoint = string(.eventsPublishEndpoint), !endpoint.isEmpty else { return nil }
        return try EventPublisher(endpoint: endpoint, processName: process, credentials: try busCredentials(), context: context, logger: logger)
    }

    /// A subscriber to the live events of `topics` from the broker's proxy (EVENTS_ENDPOINT); nil
    /// when the setting is empty.
    public func eventSubscriber(topics: [String], context: ZMQContext? = nil, logger: Logger) throws -> EventSubscriber? {
        guard let endpoint = string(.eventsEndpoint), !endpoint.isEmpty else { return nil }
        return try EventSubscriber(endpoint: endpoint, topics: topics, credentials: try busCredentials(), context: context, logger: logger)
    }

    /// The log level, refusing unknown names.
    public func logLevel() throws -> Logger.Level {
        let text = try requiredString(.logLevel)
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw InvalidValue(setting: .logLevel, value: text, expected: "one of trace, debug, info, notice, warning, error, critical")
        }
        return level
    }

    /// The log format, `json` or `text`.
    public func logFormat() throws -> String {
        let text = try requiredString(.logFormat)
        guard text == "json" || text == "text" else { throw InvalidValue(setting: .logFormat, value: text, expected: "json or text") }
        return text
    }
}
