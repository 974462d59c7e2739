import Bus

extension Setting {
    public static let eventsEndpoint = Setting(
        "events.endpoint", default: "tcp://127.0.0.1:5556",
        help: "Live events: where subscribers connect (the broker's XPUB); for a subscriber, every broker's, separated by commas, each named on its own (a name is resolved again at every reconnection). Empty turns the proxy off.")
    public static let eventsPublishEndpoint = Setting(
        "events.publish.endpoint", default: "tcp://127.0.0.1:5557",
        help: "Live events: where publishers connect (the broker's XSUB); for a publisher, every broker's, separated by commas, each named on its own (a name is resolved again at every reconnection). Empty turns the proxy off.")
    public static let brokerQueueLimit = Setting(
        "broker.queue.limit", default: "10000",
        help: "Requests waiting per service; beyond it new requests are answered unavailable.", kind: .integer(1...10_000_000))
    public static let brokerDefaultDeadline = Setting(
        "broker.default.deadline", default: "10000",
        help: "Milliseconds a request without an expirytime (a foreign Majordomo client) may wait for a worker.", kind: .milliseconds(1...86_400_000))
    public static let brokerMaxDispatches = Setting(
        "broker.max.dispatches", default: "3",
        help: "Workers one request may be handed to (when they die holding it) before it is answered unavailable.", kind: .integer(1...100))
    public static let brokerServiceRetention = Setting(
        "broker.service.retention", default: "60000",
        help: "Milliseconds a service with no worker and no waiting request is remembered before the broker forgets it.",
        kind: .milliseconds(1...86_400_000))

    /// Everything `broker` reads.
    public static let brokerSettings: [Setting] = [
        .brokerEndpoint, .eventsEndpoint, .eventsPublishEndpoint, .heartbeatInterval, .heartbeatLiveness,
        .brokerQueueLimit, .brokerDefaultDeadline, .brokerMaxDispatches, .brokerServiceRetention, .busMaxMessageBytes,
        .busCurve, .busSecretKey, .busMembers, .healthPort, .healthHost,
    ]
}

extension ProcessSettings {
    /// The broker's settings; with CURVE on, each member of BUS_MEMBERS gets the rights `rights` gives its name.
    public func brokerConfiguration(rights: (String) -> BusRights) throws -> BrokerConfiguration {
        let events = string(.eventsEndpoint).flatMap { $0.isEmpty ? nil : $0 }
        let publish = string(.eventsPublishEndpoint).flatMap { $0.isEmpty ? nil : $0 }
        return BrokerConfiguration(
            endpoint: try requiredString(.brokerEndpoint),
            eventsEndpoint: events,
            eventsPublishEndpoint: publish,
            heartbeat: try heartbeat(),
            queueLimit: try int(.brokerQueueLimit),
            defaultDeadline: try milliseconds(.brokerDefaultDeadline),
            maxDispatches: try int(.brokerMaxDispatches),
            maxMessageBytes: try int(.busMaxMessageBytes),
            serviceRetention: try milliseconds(.brokerServiceRetention),
            access: try busAccess(rights: rights))
    }
}
