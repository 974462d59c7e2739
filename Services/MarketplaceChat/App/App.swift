import MarketplaceChatService
import ServiceKit

/// `marketplace-chat`: the closed university marketplace. Run as many as needed.
@main
struct MarketplaceChatApp {
    static func main() async throws {
        try await ServiceHost.main(.marketplaceChat)
    }
}
