import ZeroMQ

/// A bus member's CurveZMQ credentials: its own key pair, and the broker's public key, so it talks
/// to the real broker alone and the broker knows which member it is.
public struct BusCredentials: Sendable {
    public var keyPair: CurveKeyPair
    public var brokerKey: String

    public init(keyPair: CurveKeyPair, brokerKey: String) {
        self.keyPair = keyPair
        self.brokerKey = brokerKey
    }
}

/// What a bus member may do: the services it may serve (send READY for), the operations it may
/// call, whether its requests may speak for a signed-in user (carry `authtype`/`authid`), and
/// whether it may publish live events.
public struct BusRights: Sendable {
    public var serves: Set<String>
    public var calls: @Sendable (_ type: String) -> Bool
    public var actsForUsers: Bool
    public var publishes: Bool

    public init(serves: Set<String>, calls: @escaping @Sendable (_ type: String) -> Bool, actsForUsers: Bool, publishes: Bool) {
        self.serves = serves
        self.calls = calls
        self.actsForUsers = actsForUsers
        self.publishes = publishes
    }
}

/// A member the broker admits: a name for logs and metrics, its public key and its rights.
public struct BusMember: Sendable {
    public var name: String
    public var publicKey: String
    public var rights: BusRights

    public init(name: String, publicKey: String, rights: BusRights) {
        self.name = name
        self.publicKey = publicKey
        self.rights = rights
    }
}

/// The broker's side of CurveZMQ: its key pair and the members it admits, by public key; any other
/// key is refused at the handshake.
public struct BusAccess: Sendable {
    public var keyPair: CurveKeyPair
    /// By public key.
    public let members: [String: BusMember]
    /// By name (a connection's `User-Id`).
    let named: [String: BusMember]

    public init(keyPair: CurveKeyPair, members: [BusMember]) {
        self.keyPair = keyPair
        self.members = Dictionary(members.map { ($0.publicKey, $0) }) { first, _ in first }
        named = Dictionary(members.map { ($0.name, $0) }) { first, _ in first }
    }
}

extension ZMQSocket {
    /// Connects as the member of `credentials` (CURVE), or in the clear without them.
    func secure(_ credentials: BusCredentials?) throws {
        guard let credentials else { return }
        try useCurve(credentials.keyPair, serverKey: credentials.brokerKey)
    }
}
