import Envelope
import Foundation
import Bus
import Contracts
import Media
import MarketplaceChatContract
@testable import MarketplaceChatService
import PostgresNIO
import PostgresSupport
import ServiceKit
import Testing
import TestSupport

extension MarketplaceStackTests {
/// The chat of both apps through the gateway's routing, in process: a buyer and a seller about a
/// listing, and Nebula's private chat with disappearing messages.
@Suite(.timeLimit(.minutes(3))) struct ChatRouteTests {
    let traders = Traders()
    let dana = UUID(), eoin = UUID()

    static func nebula(_ username: String) -> TestCaller { TestCaller(username: username, app: "nebula") }

    static func count(_ sql: String, in database: Database) async throws -> Int {
        try await database.transaction { connection in
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).decode(Int.self).first { _ in true } ?? -1
        }
    }

    static func texts(_ reply: HTTPTestClient.Reply) -> [String] {
        Traders.items(reply, "messages").compactMap { if case .string(let text)? = $0["text"] { text } else { nil } }
    }

    @Test func aBuyerAndASellerChatAboutAListingSealedAtRestWithReceipts() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (aoife, brian, carla) = try await traders.headers(http)
            let database = try #require(http.databases["marketplace-chat"])
            let desk = try await Traders.list(http, aoife, title: "Desk", price: 4000, category: "furniture")

            let opened = try await http.post("/v1/conversations", json: #"{"listingId":"\#(desk)"}"#, headers: brian)
            #expect(opened.status == 200 && opened.json?["with"]?["username"] == "aoife" && opened.json?["listing"]?["mine"] == false, "\(opened.text)")
            let id = try #require(Traders.string(opened, "id"))
            #expect(Traders.string(try await http.post("/v1/conversations", json: #"{"listingId":"\#(desk)"}"#, headers: brian), "id") == id)
            // Another network's student learns nothing; a seller does not ask about their own listing.
            let foreign = try await http.post("/v1/conversations", json: #"{"listingId":"\#(desk)"}"#, headers: carla)
            let never = try await http.post("/v1/conversations", json: #"{"listingId":"\#(UUID())"}"#, headers: carla)
            #expect(foreign.status == 404 && foreign.json?["detail"] == never.json?["detail"], "\(foreign.text)")
            let own = try await http.post("/v1/conversations", json: #"{"listingId":"\#(desk)"}"#, headers: aoife)
            #expect(own.status == 400 && Traders.errorFields(own) == ["listingId"], "\(own.text)")

            let phone = "Is it still available? Text me on 087 123 4567"
            let first = try await http.post("/v1/conversations/\(id)/messages", json: #"{"text":"\#(phone)"}"#, headers: brian)
            #expect(first.status == 201 && first.json?["warning"] == true && first.json?["text"] == nil, "\(first.text)")
            let second = try await http.post("/v1/conversations/\(id)/messages", json: #"{"text":"Could collect Friday 👨‍👩‍👧"}"#, headers: brian)
            #expect(second.status == 201 && second.json?["warning"] == false, "\(second.text)")
            let empty = try await http.post("/v1/conversations/\(id)/messages", json: #"{"text":"hi","location":{"latitude":53.34,"longitude":-6.25}}"#, headers: brian)
            #expect(empty.status == 400, "one kind of content at a time: \(empty.text)")

            // The seller's chat tab: the buyer by username, the last message, two unread.
            let tab = Traders.items(try await http.get("/v1/conversations", headers: aoife), "conversations")
            #expect(tab.count == 1 && tab.first?["with"]?["username"] == "brian" && tab.first?["unread"] == 2 && tab.first?["listing"]?["mine"] == true, "\(tab)")
            #expect(tab.first?["lastMessage"]?["text"] == "Could collect Friday 👨‍👩‍👧")
            let history = try await http.get("/v1/conversations/\(id)/messages", headers: aoife)
            #expect(Self.texts(history) == ["Could collect Friday 👨‍👩‍👧", phone], "\(history.text)")
            #expect(Traders.items(history, "messages").allSatisfy { $0["mine"] == false && $0["readAt"] == .null || $0["readAt"] == nil })

            // Sealed at rest: no message's words are in the database.
            let plain = try await Self.count("SELECT count(*)::int FROM messages WHERE position(convert_to('available', 'UTF8') in body) > 0", in: database)
            let sealed = try await Self.count("SELECT count(*)::int FROM messages WHERE body IS NOT NULL", in: database)
            #expect(plain == 0 && sealed == 2)

            // Read receipts: the buyer sees that the seller read both.
            let read = try await http.post("/v1/conversations/\(id)/read", json: #"{"throughSeq":2}"#, headers: aoife)
            #expect(read.status == 200 && read.json?["readThrough"] == 2, "\(read.text)")
            #expect(Traders.items(try await http.get("/v1/conversations/\(id)/messages", headers: brian), "messages").allSatisfy { $0["readAt"] != nil && $0["readAt"] != .null })
            #expect(Traders.items(try await http.get("/v1/conversations", headers: aoife), "conversations").first?["unread"] == 0)

            // Another member's conversation is no one else's; a message is deleted by its sender only.
            #expect(try await http.get("/v1/conversations/\(id)", headers: carla).status == 404)
            let firstID = try #require(Traders.string(first, "id"))
            #expect(try await http.send("DELETE", "/v1/conversations/\(id)/messages/\(firstID)", headers: aoife).status == 404)
            #expect(try await http.send("DELETE", "/v1/conversations/\(id)/messages/\(firstID)", headers: brian).status == 200)
            let afterDelete = Traders.items(try await http.get("/v1/conversations/\(id)/messages", headers: aoife), "messages")
            #expect(afterDelete.last?["deleted"] == true && afterDelete.last?["text"] == nil, "\(afterDelete)")
            #expect(try await Self.count("SELECT count(*)::int FROM messages WHERE body IS NULL AND deleted_at IS NOT NULL", in: database) == 1)

            // Deleted for the buyer alone, until a new message brings it back with that message only.
            #expect(try await http.send("DELETE", "/v1/conversations/\(id)", headers: brian).status == 200)
            #expect(Traders.items(try await http.get("/v1/conversations", headers: brian), "conversations").isEmpty)
            #expect(Traders.items(try await http.get("/v1/conversations", headers: aoife), "conversations").count == 1)
            let spot = try await http.post("/v1/conversations/\(id)/messages", json: #"{"meeting":{"spotId":"front-arch"}}"#, headers: aoife)
            #expect(spot.status == 201, "\(spot.text)")
            let back = try await http.get("/v1/conversations/\(id)/messages", headers: brian)
            #expect(Traders.items(back, "messages").count == 1 && Traders.items(back, "messages").first?["meeting"]?["name"] != nil, "\(back.text)")

            // Each message was pushed to the other side without its words.
            let pushes = try await database.sentRequests("notifications.push.send.v1").filter { $0["content"]?["eventType"] == "marketplace.chat.message" }
            #expect(pushes.count == 3 && !pushes.contains { "\($0)".contains("available") || "\($0)".contains("Friday") }, "\(pushes)")
        }
    }

    /// MC-52: a buyer inquires in one call; MC-19: the seller sees how many did.
    @Test func aBuyerAsksAboutAListingInOneCall() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (aoife, brian, carla) = try await traders.headers(http)
            let desk = try await Traders.list(http, aoife, title: "Desk", price: 4000, category: "furniture")
            let ask = { @Sendable (listing: String, headers: [String: String]) in
                try await http.post("/v1/marketplace/listings/\(listing)/ask", json: #"{"text":"Is it still available?"}"#, headers: headers)
            }
            let asked = try await ask(desk, brian)
            #expect(asked.status == 201 && asked.json?["with"]?["username"] == "aoife", "\(asked.text)")
            #expect(asked.json?["lastMessage"]?["text"] == "Is it still available?" && asked.json?["lastMessage"]?["mine"] == true, "\(asked.text)")
            // Asking again is the same conversation, one more message.
            let again = try await ask(desk, brian)
            #expect(again.status == 201 && Traders.string(again, "id") == Traders.string(asked, "id"), "\(again.text)")
            let tab = Traders.items(try await http.get("/v1/conversations", headers: aoife), "conversations")
            #expect(tab.count == 1 && tab.first?["unread"] == 2, "\(tab)")
            // MC-19: the seller sees how many asked; no one else does.
            #expect(try await http.get("/v1/marketplace/listings/\(desk)", headers: aoife).json?["interested"] == 1)
            #expect(Traders.items(try await http.get("/v1/marketplace/me/listings", headers: aoife), "listings").first?["interested"] == 1)
            #expect(try await http.get("/v1/marketplace/listings/\(desk)", headers: brian).json?["interested"] == nil)

            let foreign = try await ask(desk, carla), nothing = try await ask(UUID().uuidString, carla)
            #expect(foreign.status == 404 && foreign.json?["detail"] == nothing.json?["detail"], "\(foreign.text)")
            let own = try await ask(desk, aoife)
            #expect(own.status == 400 && Traders.errorFields(own) == ["listingId"], "\(own.text)")
            #expect(try await ask(desk, try await http.signedIn(dana, as: Self.nebula("dana"))).status == 403, "the marketplace app's")
            let empty = try await http.post("/v1/marketplace/listings/\(desk)/ask", json: #"{"text":"  "}"#, headers: brian)
            #expect(empty.status == 400 && Traders.errorFields(empty) == ["text"], "\(empty.text)")
        }
    }

    @Test func aPrivateChatWithAThirtySecondTimerWaitsForItsOfflineReaderThenVanishes() async throws {
        let clock = MovableClock(stopped: true)
        try await InProcessStack.with([.marketplaceChat], clock: clock.clock) { http in
            let database = try #require(http.databases["marketplace-chat"])
            let parts = try await ServiceDefinition.marketplaceChat.parts(on: database, clock: clock.clock)
            let purge = try #require(parts.jobs.first { $0.name.hasSuffix("messages.purge") })
            var (dana, eoin) = (try await http.signedIn(self.dana, as: Self.nebula("dana")), try await http.signedIn(self.eoin, as: Self.nebula("eoin")))
            _ = try await http.get("/v1/conversations", headers: eoin)
            let market = try await http.signedIn(traders.brian, as: Traders.caller("tcd", "brian"))

            let missing = try await http.post("/v1/conversations", json: #"{"username":"nobody"}"#, headers: dana)
            #expect(missing.status == 404 && Traders.errorFields(missing) == ["username"], "\(missing.text)")
            #expect(try await http.post("/v1/conversations", json: #"{"listingId":"\#(UUID())"}"#, headers: dana).status == 400)
            let opened = try await http.post("/v1/conversations", json: #"{"username":"Eoin"}"#, headers: dana)
            #expect(opened.status == 200 && opened.json?["kind"] == "private" && opened.json?["with"]?["username"] == "eoin", "\(opened.text)")
            let id = try #require(Traders.string(opened, "id"))
            #expect(try await http.get("/v1/conversations/\(id)", headers: market).status == 404, "the marketplace app sees no private chat")
            let mallory = try await http.signedIn(UUID(), as: Self.nebula("mallory"))
            #expect(try await http.get("/v1/conversations/\(id)", headers: mallory).status == 404)

            let odd = try await http.send("PUT", "/v1/conversations/\(id)/timer", body: Array(#"{"seconds":31}"#.utf8), headers: dana)
            #expect(odd.status == 400 && Traders.errorFields(odd) == ["seconds"], "\(odd.text)")
            let timer = try await http.send("PUT", "/v1/conversations/\(id)/timer", body: Array(#"{"seconds":30}"#.utf8), headers: dana)
            #expect(timer.status == 200 && timer.json?["timerSeconds"] == 30 && timer.json?["lastMessage"]?["timer"]?["seconds"] == 30, "\(timer.text)")
            let sent = try await http.post("/v1/conversations/\(id)/messages", json: #"{"text":"the door code is 4711"}"#, headers: dana)
            #expect(sent.status == 201 && sent.json?["timerSeconds"] == 30 && sent.json?["warning"] == false, "private chats are not scanned: \(sent.text)")
            let later = try await http.post("/v1/conversations/\(id)/messages", json: #"{"text":"never read"}"#, headers: dana)
            #expect(later.status == 201)

            // A minute on: gone for its sender; the offline recipient still reads both.
            clock.advance(.seconds(60))
            (dana, eoin) = (try await http.signedIn(self.dana, as: Self.nebula("dana")), try await http.signedIn(self.eoin, as: Self.nebula("eoin")))
            #expect(Self.texts(try await http.get("/v1/conversations/\(id)/messages", headers: dana)) == [])
            let waiting = try await http.get("/v1/conversations/\(id)/messages", headers: eoin)
            #expect(Self.texts(waiting) == ["never read", "the door code is 4711"], "\(waiting.text)")
            #expect(await purge.round() == 0, "each copy waits for its reader")

            // Read: 30 seconds from now for the reader, then gone from reads and from the database.
            #expect(try await http.post("/v1/conversations/\(id)/read", json: #"{"throughSeq":2}"#, headers: eoin).json?["readThrough"] == 2)
            clock.advance(.seconds(31))
            eoin = try await http.signedIn(self.eoin, as: Self.nebula("eoin"))
            #expect(Self.texts(try await http.get("/v1/conversations/\(id)/messages", headers: eoin)) == ["never read"])
            #expect(await purge.round() == 1)
            #expect(try await Self.count("SELECT count(*)::int FROM messages WHERE kind = 'text'", in: database) == 1)

            // Unread, a disappearing message outlives its sending by the timer and 7 days at most.
            clock.advance(.seconds(7 * 86_400))
            eoin = try await http.signedIn(self.eoin, as: Self.nebula("eoin"))
            #expect(Self.texts(try await http.get("/v1/conversations/\(id)/messages", headers: eoin)) == [])
            #expect(await purge.round() == 1)
            #expect(try await Self.count("SELECT count(*)::int FROM messages WHERE kind = 'text'", in: database) == 0)
            let tab = Traders.items(try await http.get("/v1/conversations", headers: eoin), "conversations")
            #expect(tab.first?["unread"] == 0 && tab.first?["lastMessage"]?["kind"] == "timer", "the timer's announcement stays: \(tab)")
        }
    }

    @Test func aBlockStopsTheChatBothWaysAndAnErasedSideIsADeletedUser() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (aoife, brian, _) = try await traders.headers(http)
            let lamp = try await Traders.list(http, aoife, title: "Lamp", price: 900, category: "furniture")
            let id = try #require(Traders.string(try await http.post("/v1/conversations", json: #"{"listingId":"\#(lamp)"}"#, headers: brian), "id"))
            #expect(try await http.post("/v1/conversations/\(id)/messages", json: #"{"text":"Hello"}"#, headers: brian).status == 201)

            #expect(try await http.send("PUT", "/v1/marketplace/blocks/\(traders.brian.uuidString.lowercased())", headers: aoife).status == 200)
            for who in [aoife, brian] {
                #expect(Traders.items(try await http.get("/v1/conversations", headers: who), "conversations").isEmpty)
                #expect(try await http.get("/v1/conversations/\(id)/messages", headers: who).status == 404)
                #expect(try await http.post("/v1/conversations/\(id)/messages", json: #"{"text":"Still there?"}"#, headers: who).status == 404)
            }
            #expect(try await http.post("/v1/conversations", json: #"{"listingId":"\#(lamp)"}"#, headers: brian).status == 404)
            #expect(try await http.send("DELETE", "/v1/marketplace/blocks/\(traders.brian.uuidString.lowercased())", headers: aoife).status == 200)
            #expect(Self.texts(try await http.get("/v1/conversations/\(id)/messages", headers: aoife)) == ["Hello"])

            // Brian's account is erased: his words stay for Aoife, from a deleted user she cannot answer.
            let database = try #require(http.databases["marketplace-chat"])
            _ = try await Traders.erase(traders.brian, in: database)
            let seen = try await http.get("/v1/conversations/\(id)", headers: aoife)
            #expect(seen.json?["with"]?["username"] == "a deleted user" && seen.json?["with"]?["id"] == nil, "\(seen.text)")
            #expect(Self.texts(try await http.get("/v1/conversations/\(id)/messages", headers: aoife)) == ["Hello"])
            #expect(try await http.post("/v1/conversations/\(id)/messages", json: #"{"text":"Bye"}"#, headers: aoife).status == 409)
        }
    }

    /// The chat's live log as the gateway's sockets use it, called as the gateway calls it.
    static func sync(_ registry: OperationRegistry, as account: UUID, username: String, after: Int64?, presence: String) async throws -> JSONValue? {
        let claims = #"{\"app\":\"nebula\",\"roles\":[\"user\"],\"sid\":\"\#(UUID().uuidString.lowercased())\",\"username\":\"\#(username)\"}"#
        let data = after.map { #"{"after":\#($0),"presence":"\#(presence)"}"# } ?? #"{"presence":"\#(presence)"}"#
        let request = """
            {"specversion":"1.0","id":"\(UUID().uuidString.lowercased())","source":"urn:melon:gateway","type":"marketplace-chat.live-chat.sync.v1",
             "time":"2026-11-21T14:00:00.000Z","datacontenttype":"application/json","expirytime":"2099-01-01T00:00:00.000Z","authtype":"app_user",
             "authid":"\(account.uuidString.lowercased())","authclaims":"\(claims)","data":\(data)}
            """
        let reply = try JSONValue.parse(await registry.handle(Array(request.utf8), logger: .init(label: "sync"), bus: nil))
        #expect(reply["outcome"] == "ok", "\(reply)")
        return reply["data"]
    }

    @Test func aSocketsCatchUpAndPresenceComeFromTheLiveLogAndAnOpenSocketTakesThePlaceOfAPush() async throws {
        let clock = MovableClock(stopped: true)
        // The stack and the parts below open the same sealed messages.
        let key = ["MARKETPLACE_CHAT_KEY": Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()]
        try await InProcessStack.with([.marketplaceChat], environment: key, clock: clock.clock) { http in
            let database = try #require(http.databases["marketplace-chat"])
            let parts = try await ServiceDefinition.marketplaceChat.parts(on: database, environment: key, clock: clock.clock)
            let registry = parts.handlers.finished()
            let prune = try #require(parts.jobs.first { $0.name.hasSuffix("live.chat.prune") })
            let (dana, eoin) = (try await http.signedIn(self.dana, as: Self.nebula("dana")), try await http.signedIn(self.eoin, as: Self.nebula("eoin")))
            _ = try await http.get("/v1/conversations", headers: eoin)
            let id = try #require(Traders.string(try await http.post("/v1/conversations", json: #"{"username":"eoin"}"#, headers: dana), "id"))
            let pushes = { @Sendable in try await database.sentRequests("notifications.push.send.v1").count }

            // Eoin's socket is open: the message reaches it, not his phone's lock screen.
            let opened = try await Self.sync(registry, as: self.eoin, username: "eoin", after: nil, presence: "open")
            #expect(opened?["cursor"] == 0 && opened?["items"] == .array([]), "\(String(describing: opened))")
            #expect(try await http.post("/v1/conversations/\(id)/messages", json: #"{"text":"hello"}"#, headers: dana).status == 201)
            #expect(try await pushes() == 0)
            let caught = try await Self.sync(registry, as: self.eoin, username: "eoin", after: 0, presence: "open")
            guard case .array(let items)? = caught?["items"], let item = items.first else { Issue.record("no items: \(String(describing: caught))"); return }
            #expect(item["cursor"] == 1 && item["type"] == "message" && item["data"]?["message"]?["text"] == "hello" && item["data"]?["message"]?["mine"] == false,
                    "\(item)")

            // Closed: the next message is pushed; his read reaches Dana's log as a receipt.
            _ = try await Self.sync(registry, as: self.eoin, username: "eoin", after: 1, presence: "closed")
            #expect(try await http.post("/v1/conversations/\(id)/messages", json: #"{"text":"are you there?"}"#, headers: dana).status == 201)
            #expect(try await pushes() == 1)
            #expect(try await http.post("/v1/conversations/\(id)/read", json: #"{"throughSeq":2}"#, headers: eoin).status == 200)
            let danas = try await Self.sync(registry, as: self.dana, username: "dana", after: 0, presence: "open")
            let receipt = danas.map { String(decoding: $0.encoded(), as: UTF8.self) } ?? ""
            #expect(receipt.contains(#""type":"read""#) && receipt.contains(#""readThrough":2"#) && danas?["cursor"] == 3, "her two messages and his receipt: \(receipt)")

            // Away longer than the log keeps: told to reload.
            clock.advance(.seconds(2 * 3_600))
            #expect(await prune.round() ?? 0 >= 5)
            let late = try await Self.sync(registry, as: self.eoin, username: "eoin", after: 1, presence: "open")
            #expect(late?["reset"] == true && late?["cursor"] == 2, "\(String(describing: late))")
        }
    }
}
}
