import AuthService
import ServiceKit

/// `auth`: accounts, email verification, sessions and token-signing keys. Run as many as needed.
@main
struct AuthApp {
    static func main() async throws {
        try await ServiceHost.main(.auth)
    }
}
