import Bus
import Foundation
import Testing
import ZeroMQ
@testable import ServiceSupport

@Suite(.timeLimit(.minutes(2))) struct ProcessSettingsTests {
    private func settings(_ arguments: [String] = [], _ environment: [String: String] = [:]) -> ProcessSettings {
        ProcessSettings(process: "test", settings: Setting.brokerSettings + [.workers, .workerConnections, .gracePeriod], arguments: ["test"] + arguments, environment: environment)
    }

    static let noRights: @Sendable (String) -> BusRights = { _ in BusRights(serves: [], calls: { _ in false }, actsForUsers: false, publishes: false) }

    /// CURVE is on unless turned off; then a missing or malformed key stops the start with what to
    /// set, and the broker admits the listed members by public key.
    @Test func curveIsOnByDefaultAndAMissingKeySaysWhatToSet() throws {
        let broker = try CurveKeyPair.generate(), gateway = try CurveKeyPair.generate()
        #expect(throws: ProcessSettings.InvalidValue.self) { try settings().brokerConfiguration(rights: Self.noRights) }
        do {
            _ = try settings().brokerConfiguration(rights: Self.noRights)
        } catch {
            #expect("\(error)".contains("BUS_SECRET_KEY (--bus-secret-key) must be set while BUS_CURVE is on"), "\(error)")
        }
        let secret = ["BUS_SECRET_KEY": broker.secretKey]
        #expect(throws: ProcessSettings.InvalidValue.self, "no members") { try settings([], secret).brokerConfiguration(rights: Self.noRights) }
        #expect(throws: ProcessSettings.InvalidValue.self, "not a key") {
            try settings([], secret.merging(["BUS_MEMBERS": "gateway:short"]) { $1 }).brokerConfiguration(rights: Self.noRights)
        }
        let access = try #require(try settings([], secret.merging(["BUS_MEMBERS": "gateway:\(gateway.publicKey)"]) { $1 })
            .brokerConfiguration(rights: Self.noRights).access)
        #expect(access.keyPair == broker && access.members[gateway.publicKey]?.name == "gateway")
        let client = ProcessSettings(process: "gateway", settings: Setting.busCurveSettings, arguments: ["gateway"], environment: [
            "BUS_SECRET_KEY": gateway.secretKey, "BUS_BROKER_KEY": broker.publicKey,
        ])
        #expect(try client.busCredentials()?.keyPair.publicKey == gateway.publicKey, "the public key is derived from the secret")
        let undeclared = ProcessSettings(process: "melon", settings: [.brokerEndpoint], arguments: ["melon"], environment: [:])
        #expect(try undeclared.busCredentials() == nil, "a process that declares no CURVE settings runs in the clear")
    }

    @Test func keysMapToEnvironmentNamesAndFlags() {
        #expect(Setting.brokerQueueLimit.environmentName == "BROKER_QUEUE_LIMIT")
        #expect(Setting.brokerQueueLimit.flag == "--broker-queue-limit")
    }

    @Test func defaultsThenEnvironmentThenFlags() throws {
        #expect(try settings().requiredString(.brokerEndpoint) == "tcp://127.0.0.1:5555")
        #expect(try settings([], ["BROKER_ENDPOINT": "tcp://10.0.0.1:7000"]).requiredString(.brokerEndpoint) == "tcp://10.0.0.1:7000")
        let both = settings(["--broker-endpoint", "tcp://10.0.0.2:7000"], ["BROKER_ENDPOINT": "tcp://10.0.0.1:7000"])
        #expect(try both.requiredString(.brokerEndpoint) == "tcp://10.0.0.2:7000")
    }

    /// A process may declare a shared setting with its own default (melon's bus is inproc).
    @Test func aProcessDeclaresItsOwnDefault() throws {
        let melon = [Setting.brokerEndpoint.defaulting(to: "inproc://melon-bus")]
        #expect(try ProcessSettings(process: "melon", settings: melon, arguments: ["melon"], environment: [:]).requiredString(.brokerEndpoint)
            == "inproc://melon-bus")
        #expect(try ProcessSettings(process: "melon", settings: melon, arguments: ["melon"], environment: ["BROKER_ENDPOINT": "tcp://10.0.0.1:5555"])
            .requiredString(.brokerEndpoint) == "tcp://10.0.0.1:5555")
        #expect(try settings().requiredString(.brokerEndpoint) == "tcp://127.0.0.1:5555", "everyone else keeps the shared default")
    }

    @Test func brokerConfigurationComesFromSettings() throws {
        let configuration = try settings(["--heartbeat-interval", "250"], ["BROKER_QUEUE_LIMIT": "7", "EVENTS_ENDPOINT": "", "BUS_CURVE": "off"])
            .brokerConfiguration(rights: Self.noRights)
        #expect(configuration.queueLimit == 7)
        #expect(configuration.access == nil)
        #expect(configuration.heartbeat == Heartbeat(interval: .milliseconds(250), liveness: 3))
        #expect(configuration.eventsEndpoint == nil)
        #expect(configuration.maxMessageBytes == 8 << 20)
    }

    /// WORKERS requests spread over WORKER_CONNECTIONS connections as evenly as they go (by default
    /// 16 over 2), and never more connections than requests.
    @Test func workerRequestsAreSpreadOverTheWorkerConnections() throws {
        let clear = ["BUS_CURVE": "off"]
        #expect(try settings([], clear).workerConfiguration().capacities == [8, 8])
        #expect(try settings([], clear.merging(["WORKERS": "10", "WORKER_CONNECTIONS": "4"]) { $1 }).workerConfiguration().capacities == [3, 3, 2, 2])
        #expect(try settings(["--worker-connections", "1"], clear.merging(["WORKERS": "64"]) { $1 }).workerConfiguration().capacities == [64])
        #expect(try settings([], clear.merging(["WORKERS": "3", "WORKER_CONNECTIONS": "16"]) { $1 }).workerConfiguration().capacities == [1, 1, 1])
    }

    /// Several brokers (issue 42): BROKER_ENDPOINTS wins over BROKER_ENDPOINT, WORKERS are split among
    /// the brokers and each share over WORKER_CONNECTIONS, and a list of nothing is refused.
    @Test func workersAreSplitAmongTheBrokers() throws {
        let clear = ["BUS_CURVE": "off", "BROKER_ENDPOINTS": "tcp://10.0.0.1:5555, tcp://10.0.0.2:5555,tcp://10.0.0.3:5555"]
        let configuration = try settings([], clear).workerConfiguration()
        let client = try settings([], clear).clientConfiguration()
        #expect(configuration.endpoint == clear["BROKER_ENDPOINTS"] && client.endpoint == configuration.endpoint)
        let brokers = BrokerEndpoints(configuration.endpoint).resolved()
        #expect(brokers == ["tcp://10.0.0.1:5555", "tcp://10.0.0.2:5555", "tcp://10.0.0.3:5555"], "literal addresses stay as they are")
        #expect(configuration.plan(brokers).map { "\($0.endpoint.suffix(6)):\($0.capacity)" } == ["1:5555:3", "1:5555:3", "2:5555:3", "2:5555:2", "3:5555:3", "3:5555:2"])
        let two = try settings([], clear.merging(["WORKERS": "2"]) { $1 }).workerConfiguration()
        #expect(two.plan(brokers).map(\.capacity) == [1, 1, 1], "no broker is left without a worker")
        #expect(BrokerEndpoints("tcp://localhost:5555").resolved() == ["tcp://127.0.0.1:5555"], "a name resolves to its addresses")
        #expect(BrokerEndpoints("tcp://no-such-broker.invalid:5555").resolved() == ["tcp://no-such-broker.invalid:5555"], "kept for libzmq to retry")
        #expect(throws: ProcessSettings.InvalidValue.self) { try settings([], ["BROKER_ENDPOINTS": " , "]).workerConfiguration() }
        // No port: refused by name (it used to trap while the host was cut out of the endpoint).
        #expect(throws: ProcessSettings.InvalidValue.self) { try settings([], ["BROKER_ENDPOINTS": "tcp://melon-broker"]).workerConfiguration() }
        #expect(BrokerEndpoints("\n tcp://10.0.0.1:5555,\ntcp://10.0.0.2:5555\n").configured == ["tcp://10.0.0.1:5555", "tcp://10.0.0.2:5555"], "a YAML block's newlines")
    }

    @Test func badValuesNameTheSettingAndTheExpectedForm() {
        #expect {
            try settings([], ["WORKERS": "lots"]).workerConfiguration()
        } throws: { error in
            String(describing: error) == #"WORKERS (--workers) must be an integer from 1 to 1024; got "lots""#
        }
        #expect(throws: ProcessSettings.InvalidValue.self) { try settings([], ["HEARTBEAT_INTERVAL": "0"]).heartbeat() }
        #expect(throws: ProcessSettings.InvalidValue.self) { try settings([], ["LOG_FORMAT": "xml"]).logFormat() }
    }

    @Test func helpListsEverySettingWithItsEnvironmentName() {
        let help = ProcessSettings.help(process: "broker", summary: "routes", settings: Setting.brokerSettings)
        for setting in Setting.brokerSettings {
            #expect(help.contains(setting.flag) && help.contains(setting.environmentName))
        }
        #expect(help.contains("default: 10000"))
    }

    @Test func secretsNeverShowTheirValue() {
        let secret = Setting("smtp.password", default: "hunter2", help: "SMTP password", isSecret: true)
        #expect(!ProcessSettings.help(process: "x", summary: "y", settings: [secret]).contains("hunter2"))
        let error = ProcessSettings.InvalidValue(setting: secret, value: "hunter2", expected: "longer")
        #expect(!error.description.contains("hunter2"))
    }
}
