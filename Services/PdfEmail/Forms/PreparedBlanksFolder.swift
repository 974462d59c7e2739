import Foundation
import ServiceLifecycle

/// Removes the folder of prepared blanks when the service stops.
struct PreparedBlanksFolder: Service {
    let folder: URL

    func run() async throws {
        try? await gracefulShutdown()
        try? FileManager.default.removeItem(at: folder)
    }
}
