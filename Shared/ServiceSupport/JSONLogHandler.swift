import Foundation
import Logging
import Synchronization

/// A swift-log handler writing one JSON object per line to standard error:
/// `{"time":…,"level":…,"logger":…,"message":…, …metadata}` (request_id and trace_id included when set).
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    public let label: String
    private static let output = Mutex(())

    public init(label: String, level: Logger.Level = .info) {
        self.label = label
        self.logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        guard let line = line(for: event) else { return }
        Self.output.withLock { _ in FileHandle.standardError.write(line) }
    }

    /// The JSON line (newline included) for `event`.
    func line(for event: LogEvent) -> Data? {
        var object: [String: Any] = [
            "time": RFC3339Now.string(),
            "level": event.level.rawValue,
            "logger": label,
            "message": event.message.description,
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for (key, value) in merged where object[key] == nil { object[key] = Self.plain(value) }
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return nil
        }
        line.append(0x0A)
        return line
    }

    private static func plain(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(plain)
        case .dictionary(let values): values.mapValues(plain)
        }
    }
}

/// The current time as RFC 3339 with milliseconds (UTC), for log lines.
enum RFC3339Now {
    static func string() -> String {
        Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
