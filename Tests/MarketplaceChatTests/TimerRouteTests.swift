import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import Testing
import TestSupport

extension MarketplaceStackTests {
/// The disappearing-messages timer's settings are the schema's, so generated clients know them and
/// the gateway refuses any other before the bus.
@Suite(.timeLimit(.minutes(2))) struct TimerRouteTests {
    let dana = UUID(), eoin = UUID()

    @Test func theTimersSettingsAreAnEnumOfTheRouteAndAnyOtherIsRefusedNamingTheField() async throws {
        let timers = MarketplaceChat.timers.map { JSONValue.number(Double($0)) }
        // What the gateway checks a request against before it goes on the bus.
        let schema = MarketplaceChat.Conversations.Timer.requestSchema
        #expect(schema[property: "seconds"]?.allowedIntegers == MarketplaceChat.timers.map { Int64($0) })
        let odd = schema.problems(["conversationId": .string(UUID().uuidString.lowercased()), "seconds": 45], at: "data")
        #expect(odd.map(\.field) == ["data.seconds"], "\(odd)")

        try await InProcessStack.with([.marketplaceChat]) { http in
            let document = try #require(try await http.get("/openapi.json").json)
            let body = document["paths"]?["/v1/conversations/{conversationId}/timer"]?["put"]?["requestBody"]?["content"]?["application/json"]?["schema"]
            #expect(body?["properties"]?["seconds"]?["enum"] == .array(timers), "\(String(describing: body))")

            let dana = try await http.signedIn(self.dana, as: TestCaller(username: "dana", app: "nebula"))
            let eoin = try await http.signedIn(self.eoin, as: TestCaller(username: "eoin", app: "nebula"))
            _ = try await http.get("/v1/conversations", headers: eoin)
            let id = try #require(Traders.string(try await http.post("/v1/conversations", json: #"{"username":"eoin"}"#, headers: dana), "id"))
            let refused = try await http.send("PUT", "/v1/conversations/\(id)/timer", body: Array(#"{"seconds":45}"#.utf8), headers: dana)
            #expect(refused.status == 400 && Traders.errorFields(refused) == ["seconds"], "\(refused.text)")
            #expect(refused.text.contains("must be one of 0, 30, 300, 3600, 86400, 604800"), "\(refused.text)")
            let set = try await http.send("PUT", "/v1/conversations/\(id)/timer", body: Array(#"{"seconds":3600}"#.utf8), headers: dana)
            #expect(set.status == 200 && set.json?["timerSeconds"] == 3600, "\(set.text)")
        }
    }
}
}
