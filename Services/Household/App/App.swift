import HouseholdService
import ServiceKit

/// `household`: roommates' households, their members and invite codes. Run as many as needed.
@main
struct HouseholdApp {
    static func main() async throws {
        try await ServiceHost.main(.household)
    }
}
