import Foundation

/// `melon` as a child process on a fresh database, with its mail written to a spool folder: what the
/// tests that drive the whole product over HTTP start.
public struct MelonProcess {
    public let process: ChildProcess
    public let http: HTTPTestClient
    /// Where its mail lands as `.eml` files.
    public let spool: URL

    public struct NotReady: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `melon` with `required` (a value for each service's required settings, as run.sh gives
    /// them: `MelonServices.localEnvironment()`) and returns once `/readyz` answers 200; throws with
    /// its output when it does not within 30 s. Its parts talk over melon's inproc bus, as `run.sh`
    /// runs it.
    public static func start(required: [String: String]) async throws -> MelonProcess {
        let httpPort = Ports.free()
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent("melon-spool-\(UUID().uuidString)")
        let process = try ChildProcess(product: "melon", environment: required.merging([
            "HTTP_PORT": "\(httpPort)",
            "DATABASE_URL": try await TestDatabase.freshDatabase(), "MAIL_SPOOL_DIR": spool.path,
            "REFUND_CONTACT_EMAIL": "refunds@redoak.example", "PUSH_LOG": spool.appendingPathComponent("push.log").path,
        ]) { $1 })
        let http = HTTPTestClient(base: URL(string: "http://127.0.0.1:\(httpPort)")!)
        guard await eventually(timeout: .seconds(30), { try await http.get("/readyz").status == 200 }) else {
            throw NotReady(description: "melon is not ready after 30 s: \(process.output)")
        }
        return MelonProcess(process: process, http: http, spool: spool)
    }
}
