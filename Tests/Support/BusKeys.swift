import Bus
import ZeroMQ

/// CurveZMQ keys for a test stack: the broker's and one pair per member name, as `broker keys`
/// makes them, so a stack of separate processes runs with the bus encrypted and each member held to
/// its rights, as deployed.
public struct BusKeys: Sendable {
    public let broker: CurveKeyPair
    public let members: [String: CurveKeyPair]

    public init(names: [String]) throws {
        broker = try CurveKeyPair.generate()
        members = try Dictionary(uniqueKeysWithValues: names.map { ($0, try CurveKeyPair.generate()) })
    }

    /// What the broker admits: every member, with the rights `rights` gives its name.
    public func access(rights: (String) -> BusRights) -> BusAccess {
        BusAccess(keyPair: broker, members: members.map { BusMember(name: $0.key, publicKey: $0.value.publicKey, rights: rights($0.key)) })
    }

    /// The member `name`'s credentials, for a client in the test process.
    public func credentials(_ name: String) -> BusCredentials {
        BusCredentials(keyPair: members[name]!, brokerKey: broker.publicKey)
    }

    /// The member `name`'s bus settings, for a process.
    public func environment(_ name: String) -> [String: String] {
        ["BUS_CURVE": "on", "BUS_SECRET_KEY": members[name]!.secretKey, "BUS_BROKER_KEY": broker.publicKey]
    }
}
