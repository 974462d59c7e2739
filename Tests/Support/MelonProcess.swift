import Foundation

/// `melon` as a child process on a fresh database, with its mail written to a spool folder: what the
/// tests that drive the whole product over HTTP start.
public struct MelonProcess {
    public let process: ChildProcess
    public let http: HTTPTestClient
    /// Where its mail lands as `.eml` files.
    public let spool: URL
    /// Its broker's endpoint, for calls over the bus from the test (nil: melon's own inproc bus).
    public let endpoint: String?

    public struct NotReady: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `melon` and returns once `/readyz` answers 200; throws with its output when it does
    /// not within 30 s. With `tcpBus` its broker listens on a loopback port the test can call;
    /// otherwise the parts talk over melon's default inproc endpoints, as `run.sh` runs it.
    public static func start(tcpBus: Bool = false) async throws -> MelonProcess {
        let endpoint = tcpBus ? Ports.freeEndpoint() : nil, httpPort = Ports.free()
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent("melon-spool-\(UUID().uuidString)")
        let bus = endpoint.map { ["BROKER_ENDPOINT": $0, "EVENTS_ENDPOINT": Ports.freeEndpoint(), "EVENTS_PUBLISH_ENDPOINT": Ports.freeEndpoint()] } ?? [:]
        let process = try ChildProcess(product: "melon", environment: bus.merging([
            "HTTP_PORT": "\(httpPort)",
            "DATABASE_URL": try await TestDatabase.freshDatabase(), "MAIL_SPOOL_DIR": spool.path,
            "AUTH_KEY_ENCRYPTION_KEY": Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(),
            "REFUND_CONTACT_EMAIL": "refunds@redoak.example", "PUSH_LOG": spool.appendingPathComponent("push.log").path,
            "TAX_FORM_KEY": Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(),
        ]) { $1 })
        let http = HTTPTestClient(base: URL(string: "http://127.0.0.1:\(httpPort)")!)
        guard await eventually(timeout: .seconds(30), { try await http.get("/readyz").status == 200 }) else {
            throw NotReady(description: "melon is not ready after 30 s: \(process.output)")
        }
        return MelonProcess(process: process, http: http, spool: spool, endpoint: endpoint)
    }
}
