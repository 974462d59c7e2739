import NotificationsService
import ServiceKit

/// `notifications`: devices, pushes, schedules and the inbox. Run as many as needed: they share the
/// delivery queue and the schedules in PostgreSQL, and each delivery is sent by one of them at a time.
@main
struct NotificationsApp {
    static func main() async throws {
        try await ServiceHost.main(.notifications)
    }
}
