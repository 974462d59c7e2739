import Bus
import ZeroMQ

extension Setting {
    public static let busCurve = Setting(
        "bus.curve", default: "on",
        help: "on: every bus connection is encrypted and authenticated with CurveZMQ (BUS_SECRET_KEY, BUS_BROKER_KEY, the broker's BUS_MEMBERS); off: in the clear, for one trusted host.")
    public static let busSecretKey = Setting(
        "bus.secret.key", default: nil,
        help: "This process's CurveZMQ secret key (40 characters of Z85); `broker keys <name>...` prints new ones with their public keys.",
        isSecret: true)
    public static let busBrokerKey = Setting(
        "bus.broker.key", default: nil, help: "The broker's CurveZMQ public key (Z85): the process talks to the holder of its secret alone.")
    public static let busMembers = Setting(
        "bus.members", default: nil,
        help: "Broker: the members it admits, name:publickey,... (gateway, or a service's name); each name's rights are fixed in BusPolicy. Any other key is refused.")

    /// What every process that connects to the broker reads for CurveZMQ.
    public static let busCurveSettings: [Setting] = [.busCurve, .busSecretKey, .busBrokerKey]
}

extension ProcessSettings {
    /// Whether CurveZMQ is on: for a process that declares BUS_CURVE (every separate process), unless
    /// it is `off`. `melon` declares none of the CURVE settings: its parts share one process.
    public func curveIsOn() throws -> Bool {
        guard settings.contains(.busCurve) else { return false }
        switch try requiredString(.busCurve) {
        case "on": return true
        case "off": return false
        case let other: throw InvalidValue(setting: .busCurve, value: other, expected: "on or off")
        }
    }

    /// This process's CurveZMQ credentials, nil with CURVE off; a missing or malformed key is an
    /// error that says what to set.
    public func busCredentials() throws -> BusCredentials? {
        guard try curveIsOn() else { return nil }
        return BusCredentials(keyPair: try curveKeyPair(), brokerKey: try curveKey(.busBrokerKey, what: "the broker's public key"))
    }

    /// The broker's CurveZMQ access: its key pair and the members of BUS_MEMBERS with the rights
    /// `rights` gives each name; nil with CURVE off.
    public func busAccess(rights: (String) -> BusRights) throws -> BusAccess? {
        guard try curveIsOn() else { return nil }
        let keyPair = try curveKeyPair()
        let text = string(.busMembers) ?? ""
        var members: [BusMember] = []
        for entry in text.split(separator: ",") {
            let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, CurveKeyPair.isKey(parts[1]) else {
                throw InvalidValue(setting: .busMembers, value: String(entry), expected: "name:publickey entries (a public key is 40 characters of Z85)")
            }
            guard !members.contains(where: { $0.publicKey == parts[1] || $0.name == parts[0] }) else {
                throw InvalidValue(setting: .busMembers, value: String(entry), expected: "each name and each key listed once")
            }
            members.append(BusMember(name: parts[0], publicKey: parts[1], rights: rights(parts[0])))
        }
        guard !members.isEmpty else {
            throw InvalidValue(setting: .busMembers, value: "", expected: "set while BUS_CURVE is on: the members' name:publickey (`broker keys <name>...` prints them)")
        }
        return BusAccess(keyPair: keyPair, members: members)
    }

    private func curveKeyPair() throws -> CurveKeyPair {
        let secret = try curveKey(.busSecretKey, what: "this process's secret key")
        return try CurveKeyPair(secretKey: secret)
    }

    private func curveKey(_ setting: Setting, what: String) throws -> String {
        guard let text = string(setting), !text.isEmpty else {
            throw InvalidValue(
                setting: setting, value: "",
                expected: "set while BUS_CURVE is on: \(what) (`broker keys <name>...` prints new keys), or BUS_CURVE=off on one trusted host")
        }
        guard CurveKeyPair.isKey(text) else { throw InvalidValue(setting: setting, value: text, expected: "40 characters of Z85") }
        return text
    }
}
