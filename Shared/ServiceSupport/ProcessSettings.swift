import Configuration
import Foundation

/// A process's configuration: its declared settings read from flags, then the environment.
public struct ProcessSettings: Sendable {
    /// A value that is present but not of the expected form.
    public struct InvalidValue: Error, CustomStringConvertible {
        public let setting: Setting
        public let value: String
        public let expected: String

        public init(setting: Setting, value: String, expected: String) {
            self.setting = setting
            self.value = value
            self.expected = expected
        }

        public var description: String {
            "\(setting.environmentName) (\(setting.flag)) must be \(expected); got \(setting.isSecret ? "a secret value" : "\"\(value)\"")"
        }
    }

    public let process: String
    public let settings: [Setting]
    private let reader: ConfigReader

    /// - Parameters:
    ///   - arguments: command-line arguments, the program name first.
    ///   - environment: the environment to read.
    public init(
        process: String, settings: [Setting],
        arguments: [String] = CommandLine.arguments,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.process = process
        self.settings = settings
        reader = ConfigReader(providers: [
            CommandLineArgumentsProvider(arguments: arguments),
            EnvironmentVariablesProvider(environmentVariables: environment),
        ])
    }

    /// `settings` as declared, with only `environment` set and no arguments: what a test, a benchmark
    /// or a tool reads a configuration from, instead of typing the defaults again.
    public static func declared(_ settings: [Setting], process: String, environment: [String: String] = [:]) -> ProcessSettings {
        ProcessSettings(process: process, settings: settings, arguments: [process], environment: environment)
    }

    /// The value of `setting`, or its default (as the process declared the setting, see `Setting.defaulting(to:)`).
    public func string(_ setting: Setting) -> String? {
        reader.string(forKey: ConfigKey(setting.key.split(separator: ".").map(String.init)), isSecret: setting.isSecret)
            ?? (settings.first { $0.key == setting.key } ?? setting).defaultValue
    }

    /// A value that must be present (its default counts).
    public func requiredString(_ setting: Setting) throws -> String {
        guard let value = string(setting), !value.isEmpty else {
            throw InvalidValue(setting: setting, value: "", expected: "set")
        }
        return value
    }

    /// A 256-bit key given as 32 bytes in base64 (`openssl rand -base64 32`).
    public func key256(_ setting: Setting) throws -> Data {
        let text = try requiredString(setting)
        guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == 32 else {
            throw InvalidValue(setting: setting, value: text, expected: "32 bytes in base64 (openssl rand -base64 32)")
        }
        return bytes
    }

    /// An integer value within the setting's range.
    public func int(_ setting: Setting) throws -> Int {
        guard let range = setting.kind.range else { preconditionFailure("\(setting.key) is not declared a number") }
        let text = try requiredString(setting)
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
            throw InvalidValue(setting: setting, value: text, expected: "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// Comma-separated networks in CIDR notation (`10.0.0.0/8,fd00::/8`); empty: none.
    public func networks(_ setting: Setting) throws -> [IPNetwork] {
        let text = string(setting) ?? ""
        return try text.split(separator: ",").map { item in
            guard let network = IPNetwork(String(item)) else {
                throw InvalidValue(setting: setting, value: text, expected: "comma-separated networks such as 10.0.0.0/8,fd00::/8")
            }
            return network
        }
    }

    /// A duration given in milliseconds, within the setting's range.
    public func milliseconds(_ setting: Setting) throws -> Duration {
        .milliseconds(try int(setting))
    }

    /// The `--help` text: every setting with its flag, environment name and default.
    public static func help(process: String, summary: String, settings: [Setting]) -> String {
        var lines = ["\(process): \(summary)", "", "Usage: \(process) [--flag value ...]", "",
                     "Every setting can be given as a flag or as an environment variable (the flag wins):", ""]
        for setting in settings {
            lines.append("  \(setting.flag) <value>   (env \(setting.environmentName))")
            lines.append("      \(setting.help)")
            if let allowed = setting.kind.allowed { lines.append("      \(allowed)") }
            if let value = setting.defaultValue, !setting.isSecret { lines.append("      default: \(value)") }
        }
        return lines.joined(separator: "\n")
    }
}
