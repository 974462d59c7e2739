@testable import GatewayService
import Testing

/// How the gateway reads `Authorization: Bearer <token>`.
@Suite(.timeLimit(.minutes(2))) struct BearerTokenTests {
    @Test func theSchemeInAnyCaseAndTheBlanksAroundTheTokenAreDropped() {
        #expect(JWKSAuthenticator.bearerToken("Bearer eyJ.a-b_c.d") == "eyJ.a-b_c.d")
        #expect(JWKSAuthenticator.bearerToken("bEaReR   eyJ.x.y \t") == "eyJ.x.y")
    }

    @Test(arguments: ["Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Bearer \t ", "Bearerabc", "Bearer\tabc", "Béarer abc", "", "bearer_abc"])
    func anythingElseIsNoBearerToken(_ header: String) {
        #expect(JWKSAuthenticator.bearerToken(header) == nil)
    }
}
