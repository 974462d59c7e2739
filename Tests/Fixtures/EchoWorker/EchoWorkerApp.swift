import ServiceKit
import TestSupport

/// `echo-worker`: serves the `echo` fixture service, for tests and the bus benchmark.
@main
struct EchoWorkerApp {
    static func main() async throws {
        try await ServiceHost.main(.echo)
    }
}
