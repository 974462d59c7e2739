import Foundation
import Testing
import TestSupport

/// An ended session's access token stops working at every gateway within seconds, not when the
/// token expires: two gateways on one bus, auth as its own process.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(10))) struct SessionRevocationTests {
    typealias Journey = AuthJourneyTests

    @Test func aLoggedOutTokenIsRefusedAtASecondGatewayWithinTwoSecondsAndAGatewayStartedLaterKnowsIt() async throws {
        let stack = try await AuthStack(refundCalculator: [:])
        let (second, secondAddress) = try AuthStack.gateway(on: stack.broker)
        try await stack.with { http in
            try await BusHarness.with([second]) {
                let other = try await secondAddress.client()
                let niamh = try await Journey.signedUp(stack, http, email: "niamh@tcd.ie", username: "niamh", app: "refunds")
                let asNiamh = ["Authorization": "Bearer \(niamh.access)", "Content-Type": "application/json"]
                let save = { @Sendable (gateway: HTTPTestClient) in
                    try await gateway.send("POST", "/v1/refunds/scenarios", body: Array(#"{"name":"2024","scenario":{}}"#.utf8), headers: asNiamh)
                }
                let before = try await save(other)
                #expect(before.status == 201, "the second gateway takes the token: \(before.text)")

                let logout = try await http.post("/v1/auth/logout", [:], token: niamh.access)
                #expect(logout.status == 200, "\(logout.text)")
                let loggedOut = ContinuousClock.now
                var refused: HTTPTestClient.Reply?
                // Until the logout's live event reaches the second gateway (within 2 s), it still serves the token.
                var servedAfterLogout = 0
                while ContinuousClock.now - loggedOut < .seconds(2) {
                    let reply = try await save(other)
                    if reply.status != 201 { refused = reply; break }
                    servedAfterLogout += 1
                    try await Task.sleep(for: .milliseconds(20))
                }
                let elapsed = ContinuousClock.now - loggedOut
                #expect(refused?.status == 401, "refused within 2 s (\(elapsed)): \(refused?.text ?? "still served")")
                #expect(refused.map { Journey.string($0, "detail") == "the session has ended: sign in again" } == true)
                #expect(try await save(http).status == 401, "and at the first gateway")

                // A gateway that starts now, after the live event went out, reads the ended sessions from auth.
                let (late, lateAddress) = try AuthStack.gateway(on: stack.broker)
                try await BusHarness.with([late]) {
                    let reply = try await save(try await lateAddress.client())
                    #expect(reply.status == 401, "\(reply.text)")
                }
                // The saves it served are kept; none refused is (a busy machine once served one more than the first).
                #expect(try await TestDatabase.integer(
                    "SELECT count(*)::int FROM refund_calculator.scenarios", on: stack.databaseURL) == 1 + servedAfterLogout, "only the saves served")
            }
        }
    }
}
}
