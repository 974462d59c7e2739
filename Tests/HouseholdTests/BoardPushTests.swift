import Envelope
import Foundation
import HouseholdService
import NotificationsService
import PostgresNIO
import PostgresSupport
import ServiceKit
import Testing
import TestSupport

extension HouseholdStackTests {
/// The seed's "Message" push: a comment on a post, through the gateway's routing to household and
/// on through its outbox to notifications, in process.
@Suite(.timeLimit(.minutes(2))) struct BoardPushTests {
    let roommates = Roommates()

    /// Each `household.board.commented` push household queued and the relay has not delivered yet, oldest first.
    static func commentPushes(_ http: InProcessHTTP) async throws -> [JSONValue] {
        try await #require(http.databases["household"]).sentRequests("notifications.push.send.v1", undelivered: true)
            .filter { $0["content"]?["eventType"] == "household.board.commented" }
    }

    /// The accounts notifications queued a delivery to, or put an inbox item for, of a comment push: one entry each.
    static func reached(_ http: InProcessHTTP, _ table: String) async throws -> [UUID] {
        let database = try #require(http.databases["notifications"])
        let query: PostgresQuery = table == "deliveries"
            ? """
              SELECT v.account_id FROM deliveries d JOIN devices v ON v.id = d.device_id JOIN pushes p ON p.id = d.push_id
              WHERE p.content->>'eventType' = 'household.board.commented'
              """
            : "SELECT account_id FROM notifications WHERE event_type = 'household.board.commented'"
        return try await database.transaction { connection in
            try await connection.query(query, logger: database.logger).decode(UUID.self).reduce(into: [UUID]()) { $0.append($1) }
        }
    }

    @Test func aCommentReachesTheAuthorAndEarlierCommentersButNotTheCommenterNorWhoMutedIt() async throws {
        try await InProcessStack.with([.household, .notifications]) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"
            // Each roommate's phone, signed in to the household app.
            for (account, digit) in [(roommates.ana, "a"), (roommates.ben, "b"), (roommates.cara, "c")] {
                let device = try await http.post(
                    "/v1/devices", json: #"{"platform":"ios","token":"\#(String(repeating: digit, count: 64))","environment":"sandbox"}"#,
                    headers: try await http.signedIn(account, as: .roommate))
                #expect(device.status == 201, "\(device.text)")
            }
            func recipient(_ account: UUID) -> JSONValue { .string(account.uuidString.lowercased()) }
            let (ana, ben, cara) = (recipient(roommates.ana), recipient(roommates.ben), recipient(roommates.cara))

            let post = try #require(HouseholdRouteTests.string(
                try await http.post("\(base)/posts", json: #"{"title":"Party on Saturday"}"#, headers: flat.ana), "id"))
            // Cara comments first: Ana, the author, hears of it.
            #expect(try await http.post("\(base)/posts/\(post)/comments", json: #"{"text":"I'll bring crisps"}"#, headers: flat.cara).status == 201)
            // Ben comments: Ana and Cara hear of it, Ben does not.
            #expect(try await http.post("\(base)/posts/\(post)/comments", json: #"{"text":"Me too"}"#, headers: flat.ben).status == 201)
            var pushes = try await Self.commentPushes(http)
            #expect(pushes.map(\.["recipients"]) == [.array([ana]), .array([ana, cara])], "\(pushes)")
            #expect(pushes.last?["content"]?["category"] == "board" && pushes.last?["content"]?["data"]?["id"] == .string(post))
            #expect(pushes.last?["content"]?["alert"]?["body"] == "Me too")
            #expect(try await http.relayOutbox(of: "household") >= 3, "the post and the two comments")

            // Cara turns comment pushes off: Ben's next comment reaches her inbox but not her phone.
            let muted = try await http.send(
                "PUT", "/v1/notifications/preferences", body: Array(#"{"muted":[{"app":"household","eventType":"household.board.commented"}]}"#.utf8),
                headers: try await http.signedIn(roommates.cara, as: .roommate))
            #expect(muted.status == 200, "\(muted.text)")
            #expect(try await http.post("\(base)/posts/\(post)/comments", json: #"{"text":"And a chair"}"#, headers: flat.ben).status == 201)
            pushes = try await Self.commentPushes(http)
            #expect(pushes.last?["recipients"] == .array([ana, cara]), "\(pushes)")
            #expect(try await http.relayOutbox(of: "household") >= 1)

            let delivered = try await Self.reached(http, "deliveries").map(recipient)
            #expect(delivered.filter { $0 == ana }.count == 3 && delivered.filter { $0 == cara }.count == 1, "\(delivered)")
            #expect(!delivered.contains(ben), "the commenter is never told of his own comments")
            let inbox = try await Self.reached(http, "notifications").map(recipient)
            #expect(inbox.filter { $0 == cara }.count == 2 && !inbox.contains(ben), "a muted push still reaches the inbox: \(inbox)")
        }
    }
}
}
