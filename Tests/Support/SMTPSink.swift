import Foundation

/// A real SMTP server for tests: `Tests/Mail/smtp_sink.py` (aiosmtpd) on loopback, storing each
/// message's DATA byte for byte as an `.eml` file (with its envelope in a `.json` beside it) and
/// refusing recipients whose address contains "reject" with a permanent 550.
public final class SMTPSink: Sendable {
    public let process: ChildProcess
    public let port: Int
    public let folder: URL

    /// Starts the server on `port` (a free one by default), storing into `folder` (a new temporary
    /// one by default), with `options` (`--starttls CERT KEY`, `--tls CERT KEY`, `--auth USER:PASSWORD`);
    /// returns once it listens.
    public init(port: Int = Ports.free(), folder: URL? = nil, options: [String] = []) async throws {
        self.port = port
        self.folder = folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("melon-smtp-\(UUID().uuidString)")
        process = try ChildProcess(executable: "/usr/bin/python3", arguments: [
            BuildProducts.packageRoot().appendingPathComponent("Tests/Mail/smtp_sink.py").path, "\(port)", self.folder.path,
        ] + options, name: "smtp-sink")
        let process = process
        guard await eventually(timeout: .seconds(20), { process.output.contains("listening") }) else {
            throw StartFailed(description: "the SMTP sink did not start: \(process.output)")
        }
    }

    public struct StartFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// The messages received so far, by file name.
    public func messages() throws -> [URL] {
        guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "eml" }.sorted { $0.path < $1.path }
    }

    /// The SMTP envelope (`from`, `to`) a message arrived with, whether the session was encrypted
    /// (`tls`) and who logged in (`login`).
    public static func envelope(of message: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: message.deletingPathExtension().appendingPathExtension("json"))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    /// A received message read by Python's email package, independently of our writer: decoded
    /// headers (`subject`, `from`, `to`, `replyTo`, `date`, `messageId`), `text` and `html` bodies,
    /// `attachments` (name, type, sha256), `bareLineFeeds` and `longestLine`.
    public static func inspect(_ message: URL, savingAttachmentsTo folder: URL? = nil) async throws -> [String: Any] {
        let run = try ChildProcess(executable: "/usr/bin/python3", arguments: [
            BuildProducts.packageRoot().appendingPathComponent("Tests/Mail/inspect_mail.py").path, message.path,
        ] + (folder.map { [$0.path] } ?? []), name: "inspect-mail")
        guard await run.wait(timeout: .seconds(30)) == 0 else { throw StartFailed(description: "inspect_mail.py failed: \(run.output)") }
        return try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any] ?? [:]
    }
}

/// A self-signed certificate for 127.0.0.1 and localhost (P-256, made with the openssl command), for
/// TLS tests: `certificate` doubles as the CA file clients trust.
public struct TestCertificate: Sendable {
    public let certificate: String
    public let key: String

    public init() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("melon-cert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        certificate = folder.appendingPathComponent("cert.pem").path
        key = folder.appendingPathComponent("key.pem").path
        let openssl = try ChildProcess(executable: "/usr/bin/openssl", arguments: [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-keyout", key, "-out", certificate, "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ], name: "openssl")
        guard await openssl.wait(timeout: .seconds(30)) == 0 else {
            throw SMTPSink.StartFailed(description: "openssl could not make a certificate: \(openssl.output)")
        }
    }
}
