import Foundation
import Logging

/// The local default when no SMTP server is configured: each message becomes an `.eml` file in a
/// folder, and the log says where.
public struct SpoolTransport: MailTransport {
    public let folder: URL
    private let logger: Logger

    public init(folder: URL, logger: Logger) {
        self.folder = folder
        self.logger = logger
    }

    public func send(_ message: [UInt8], from sender: String, to recipients: [String]) async throws(MailDeliveryError) {
        let file = folder.appendingPathComponent("\(Self.stamp())-\(UUID().uuidString.prefix(8)).eml")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(message).write(to: file, options: .atomic)
        } catch {
            throw MailDeliveryError(permanent: false, code: nil, reply: "could not write to the spool folder \(folder.path)")
        }
        logger.info("mail written to the spool", metadata: ["file": "\(file.path)", "recipients": "\(recipients.count)"])
    }

    private static func stamp() -> String {
        String(Int(Date().timeIntervalSince1970 * 1000))
    }
}
