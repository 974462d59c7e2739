import Envelope
import Foundation
import MarketplaceChatContract
@testable import MarketplaceChatService
import PostgresSupport
import ServiceKit
import Testing
import TestSupport

extension MarketplaceStackTests {
/// Pictures in chat through the gateway's routing, in process: sealed at rest under the
/// conversation's key, served to its two sides only, and gone with their messages.
@Suite(.timeLimit(.minutes(3))) struct ChatImageRouteTests {
    let dana = UUID(), eoin = UUID()

    static let webp = Array("RIFF".utf8), png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]

    @Test func aPictureIsSealedServedToItsTwoSidesAndGoesWithItsMessage() async throws {
        let clock = MovableClock(stopped: true)
        try await InProcessStack.with([.marketplaceChat], clock: clock.clock) { http in
            let database = try #require(http.databases["marketplace-chat"])
            let parts = try await ServiceDefinition.marketplaceChat.parts(on: database, clock: clock.clock)
            let purge = try #require(parts.jobs.first { $0.name.hasSuffix("messages.purge") })
            var (dana, eoin) = (try await http.signedIn(self.dana, as: ChatRouteTests.nebula("dana")), try await http.signedIn(self.eoin, as: ChatRouteTests.nebula("eoin")))
            let mallory = try await http.signedIn(UUID(), as: ChatRouteTests.nebula("mallory"))
            let maeve = try await http.signedIn(UUID(), as: ModerationRouteTests.moderator)
            _ = try await http.get("/v1/conversations", headers: eoin)
            let id = try #require(Traders.string(try await http.post("/v1/conversations", json: #"{"username":"eoin"}"#, headers: dana), "id"))
            let send = { @Sendable (headers: [String: String], type: String, body: [UInt8], conversation: String) in
                try await http.send("POST", "/v1/conversations/\(conversation)/images", body: body, headers: headers.merging(["Content-Type": type]) { $1 })
            }
            let count = { @Sendable (sql: String) in try await ChatRouteTests.count(sql, in: database) }
            /// The kept images and their files.
            let kept = { @Sendable in
                [try await count("SELECT count(*)::int FROM media_objects"), try await count("SELECT count(*)::int FROM media_blobs")]
            }

            // What is not a picture, and a picture for a conversation not one's own (answered as one that does not exist).
            #expect(try await send(dana, "text/plain", Array("hello".utf8), id).status == 415)
            let fake = try await send(dana, "image/png", Array("not a png at all".utf8), id)
            #expect(fake.status == 400 && Traders.errorFields(fake) == ["content"], "\(fake.text)")
            let stranger = try await send(mallory, "image/png", Array(ImageSamples.png40x30), id)
            let nowhere = try await send(mallory, "image/png", Array(ImageSamples.png40x30), UUID().uuidString)
            #expect(stranger.status == 404 && stranger.json?["detail"] == nowhere.json?["detail"], "\(stranger.text)")
            #expect(try await count("SELECT count(*)::int FROM media_objects") == 0, "nothing kept for a refused picture")

            #expect(try await http.send("PUT", "/v1/conversations/\(id)/timer", body: Array(#"{"seconds":30}"#.utf8), headers: dana).status == 200)
            let sent = try await send(dana, "image/png", Array(ImageSamples.png40x30), id)
            #expect(sent.status == 201 && sent.json?["timerSeconds"] == 30, "\(sent.text)")
            let picture = try #require(Traders.string(sent, "id"))
            let history = Traders.items(try await http.get("/v1/conversations/\(id)/messages", headers: eoin), "messages")
            let shown = try #require(history.first { $0["id"] == .string(picture) })
            #expect(shown["kind"] == "image" && shown["image"]?["width"] == 40 && shown["image"]?["height"] == 30 && shown["mine"] == false, "\(shown)")

            // Both sides see it, the thumbnail as WebP; someone else and an unknown message are answered alike.
            let path = "/v1/conversations/\(id)/messages/\(picture)/image"
            let full = try await http.get(path, headers: eoin)
            #expect(full.status == 200 && full.body.starts(with: Self.png) && full.headers["content-type"] == "image/png", "\(full.status) \(full.headers)")
            #expect(try await http.get(path + "?size=thumbnail", headers: eoin).body.starts(with: Self.webp))
            #expect(try await http.get(path, headers: dana).status == 200)
            let outsider = try await http.get(path, headers: mallory)
            let unknown = try await http.get("/v1/conversations/\(id)/messages/\(UUID())/image", headers: eoin)
            #expect(outsider.status == 404 && unknown.status == 404 && unknown.json?["detail"] != nil, "\(unknown.text)")

            // Sealed at rest: no kept file starts as an image does.
            #expect(try await count("SELECT count(*)::int FROM media_blobs") == 2)
            #expect(try await count(
                "SELECT count(*)::int FROM media_blobs WHERE substring(content FROM 1 FOR 4) IN ('RIFF'::bytea, '\\x89504e47'::bytea)") == 0)

            // Reported, the moderators keep its thumbnail, sealed with the case; removed by them, its files go.
            let second = try #require(Traders.string(try await send(dana, "image/webp", Array(ImageSamples.webpLossy40x30), id), "id"))
            #expect(try await kept() == [2, 4])
            #expect(try await ModerationRouteTests.report(http, eoin, "message", second).status == 201)
            let reported = try await ModerationRouteTests.openCase(http, maeve, about: second)
            let detail = try await http.get("/v1/moderation/cases/\(reported)", headers: maeve)
            guard case .string(let thumbnail)? = detail.json?["snapshot"]?["picture"] else { Issue.record("no picture: \(detail.text)"); return }
            #expect(Data(base64Encoded: thumbnail)?.starts(with: Self.webp) == true && detail.json?["snapshot"]?["message"]?["kind"] == "image")
            #expect(try await ModerationRouteTests.decide(http, maeve, reported, #"{"action":"remove","note":"Not for here."}"#).status == 201)
            #expect(try await kept() == [1, 2])
            #expect(try await http.get("/v1/conversations/\(id)/messages/\(second)/image", headers: eoin).status == 404)

            // Deleted for both by its sender: its files go at once.
            let third = try #require(Traders.string(try await send(dana, "image/png", Array(ImageSamples.png40x30), id), "id"))
            #expect(try await http.send("DELETE", "/v1/conversations/\(id)/messages/\(third)", headers: dana).status == 200)
            #expect(try await kept() == [1, 2])
            #expect(try await http.get("/v1/conversations/\(id)/messages/\(third)/image", headers: eoin).status == 404)

            // Disappearing: the sender's copy after 30 s, the reader's 30 s after reading, and the files with the last copy.
            clock.advance(.seconds(60))
            (dana, eoin) = (try await http.signedIn(self.dana, as: ChatRouteTests.nebula("dana")), try await http.signedIn(self.eoin, as: ChatRouteTests.nebula("eoin")))
            #expect(try await http.get(path, headers: dana).status == 404)
            #expect(try await http.get(path, headers: eoin).status == 200)
            #expect(try await http.post("/v1/conversations/\(id)/read", json: #"{"throughSeq":10}"#, headers: eoin).status == 200)
            clock.advance(.seconds(31))
            eoin = try await http.signedIn(self.eoin, as: ChatRouteTests.nebula("eoin"))
            #expect(try await http.get(path, headers: eoin).status == 404)
            #expect(await purge.round() == 3, "the picture and the two deleted for both")
            #expect(try await kept() == [0, 0])

            // Its sender's account erased: the pictures it sent go; the message stays without one.
            dana = try await http.signedIn(self.dana, as: ChatRouteTests.nebula("dana"))
            #expect(try await http.send("PUT", "/v1/conversations/\(id)/timer", body: Array(#"{"seconds":0}"#.utf8), headers: dana).status == 200)
            // Deleted by both sides for themselves: the messages leave the database, the files with them.
            _ = try #require(Traders.string(try await send(dana, "image/png", Array(ImageSamples.png40x30), id), "id"))
            #expect(try await http.send("DELETE", "/v1/conversations/\(id)", headers: eoin).status == 200)
            #expect(try await kept() == [1, 2], "still Dana's")
            #expect(try await http.send("DELETE", "/v1/conversations/\(id)", headers: dana).status == 200)
            #expect(try await kept() == [0, 0])

            let last = try #require(Traders.string(try await send(dana, "image/png", Array(ImageSamples.png40x30), id), "id"))
            _ = try await Traders.erase(self.dana, in: database)
            #expect(try await kept() == [0, 0])
            let after = Traders.items(try await http.get("/v1/conversations/\(id)/messages", headers: eoin), "messages")
            let orphan = try #require(after.first { $0["id"] == .string(last) })
            #expect(orphan["kind"] == "image" && orphan["image"] == nil, "\(orphan)")
            #expect(try await http.get("/v1/conversations/\(id)/messages/\(last)/image", headers: eoin).status == 404)
        }
    }
}
}
