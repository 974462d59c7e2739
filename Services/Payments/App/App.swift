import PaymentsService
import ServiceKit

/// `payments`: the fundraising app's campaigns over a double-entry ledger. Run as many as needed.
@main
struct PaymentsApp {
    static func main() async throws {
        try await ServiceHost.main(.payments)
    }
}
