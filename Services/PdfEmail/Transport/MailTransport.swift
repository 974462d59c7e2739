/// Where rendered mail goes: an SMTP server, or the local spool folder.
public protocol MailTransport: Sendable {
    /// Hands `message` (already rendered) over for delivery to `recipients`.
    func send(_ message: [UInt8], from sender: String, to recipients: [String]) async throws(MailDeliveryError)
}

/// Why a mail was not accepted. Permanent failures (SMTP 5xx) end in `failed`; others are retried.
public struct MailDeliveryError: Error, Sendable, Equatable, CustomStringConvertible {
    public var permanent: Bool
    /// The SMTP reply code, when the server gave one.
    public var code: Int?
    /// What the server or the transport said.
    public var reply: String

    public init(permanent: Bool, code: Int?, reply: String) {
        self.permanent = permanent
        self.code = code
        self.reply = reply
    }

    public var description: String { "\(permanent ? "permanent" : "temporary") failure\(code.map { " \($0)" } ?? ""): \(reply)" }
}
