import Bus
import Foundation
import Testing
@testable import ServiceSupport

@Suite(.timeLimit(.minutes(2))) struct ProcessSettingsTests {
    private func settings(_ arguments: [String] = [], _ environment: [String: String] = [:]) -> ProcessSettings {
        ProcessSettings(process: "test", settings: Setting.brokerSettings + [.workers, .gracePeriod], arguments: ["test"] + arguments, environment: environment)
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

    @Test func brokerConfigurationComesFromSettings() throws {
        let configuration = try settings(["--heartbeat-interval", "250"], ["BROKER_QUEUE_LIMIT": "7", "EVENTS_ENDPOINT": ""]).brokerConfiguration()
        #expect(configuration.queueLimit == 7)
        #expect(configuration.heartbeat == Heartbeat(interval: .milliseconds(250), liveness: 3))
        #expect(configuration.eventsEndpoint == nil)
        #expect(configuration.maxMessageBytes == 8 << 20)
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
