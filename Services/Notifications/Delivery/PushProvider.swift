import Foundation
import Logging
import NotificationsContract

/// Sends one push to one device and says what the push service answered. APNs today; FCM or Web
/// Push join as further providers chosen by the device's platform.
public protocol PushProvider: Sendable {
    func send(_ request: APNsRequest, environment: Notifications.Devices.Environment) async -> ProviderReply
    /// Releases connections at shutdown.
    func shutdown() async
}

/// The push service's answer.
public struct ProviderReply: Sendable, Equatable {
    public var verdict: APNsVerdict
    /// The environment of the host that answered, when known from its name: a token refusal from a
    /// host of the other environment means our setting is wrong, not the token.
    public var hostEnvironment: Notifications.Devices.Environment?
    /// `apns-id` and, from the development environment, `apns-unique-id`, for the log.
    public var apnsID: String?
    public var uniqueID: String?
    /// False when no answer came (the host refused the connection, or was silent until the timeout).
    public var answered: Bool

    public init(verdict: APNsVerdict, hostEnvironment: Notifications.Devices.Environment? = nil, apnsID: String? = nil, uniqueID: String? = nil,
                answered: Bool = true) {
        self.verdict = verdict
        self.answered = answered
        self.hostEnvironment = hostEnvironment
        self.apnsID = apnsID
        self.uniqueID = uniqueID
    }
}

/// The local default, needing no Apple account: each push appended to a file as one JSON line
/// (headers and payload; the token's last 8 digits only), answered as accepted.
public actor LogPushProvider: PushProvider {
    private let file: URL
    private var handle: FileHandle?

    public init(file: URL) {
        self.file = file
    }

    public func send(_ request: APNsRequest, environment: Notifications.Devices.Environment) async -> ProviderReply {
        var line: [String: Any] = ["time": Date().formatted(.iso8601), "environment": environment.rawValue, "tokenEnding": String(request.deviceToken.suffix(8))]
        for (name, value) in request.headers { line[name] = value }
        line["payload"] = try? JSONSerialization.jsonObject(with: Data(request.payload))
        do {
            var data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes])
            data.append(0x0A)
            try append(data)
            return ProviderReply(verdict: .accepted, apnsID: request.apnsID.uuidString.lowercased())
        } catch {
            return ProviderReply(verdict: .retry(reason: "could not write \(file.path): \(error)"))
        }
    }

    private func append(_ data: Data) throws {
        if handle == nil {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: file.path) { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
            handle = try FileHandle(forWritingTo: file)
            try handle?.seekToEnd()
        }
        try handle?.write(contentsOf: data)
    }

    public func shutdown() async {
        try? handle?.close()
        handle = nil
    }
}
