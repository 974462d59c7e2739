import Envelope
import Foundation
import MarketplaceChatService
import PostgresSupport
import Testing
import TestSupport

extension MarketplaceStackTests {
/// Reports, the moderators' queue, decisions with their audit log, suspensions and appeals, through
/// the gateway's routing, in process.
@Suite(.timeLimit(.minutes(3))) struct ModerationRouteTests {
    let traders = Traders()

    static let moderator = TestCaller(username: "maeve", roles: ["user", "moderator"], app: "marketplace")

    static func report(_ http: InProcessHTTP, _ headers: [String: String], _ subject: String, _ id: String, reason: String = "scam")
        async throws -> HTTPTestClient.Reply {
        try await http.post("/v1/reports", json: #"{"subject":"\#(subject)","id":"\#(id)","reason":"\#(reason)","details":"Asks for\na gift card"}"#,
                            headers: headers)
    }

    static func decide(_ http: InProcessHTTP, _ headers: [String: String], _ caseID: String, _ json: String) async throws -> HTTPTestClient.Reply {
        try await http.post("/v1/moderation/cases/\(caseID)/decision", json: json, headers: headers)
    }

    /// The id of the only open case about `subject`.
    static func openCase(_ http: InProcessHTTP, _ moderator: [String: String], about subject: String) async throws -> String {
        let queue = Traders.items(try await http.get("/v1/moderation/cases", headers: moderator), "cases")
        let found = try #require(queue.first { $0["subjectId"] == .string(subject) }, "\(queue)")
        guard case .string(let id)? = found["id"] else { throw CancellationError() }
        return id
    }

    static func pushes(_ database: Database, to account: UUID) async throws -> [JSONValue] {
        try await database.sentRequests("notifications.push.send.v1").filter {
            $0["content"]?["eventType"] == "marketplace.moderation.notice" && $0["recipients"] == [.string(account.uuidString.lowercased())]
        }
    }

    @Test func threeReportersHideAListingUntilAModeratorDecides() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (aoife, brian, carla) = try await traders.headers(http)
            let dara = try await http.signedIn(UUID(), as: Traders.caller("tcd", "dara"))
            let eoin = try await http.signedIn(UUID(), as: Traders.caller("tcd", "eoin"))
            let maeve = try await http.signedIn(UUID(), as: Self.moderator)
            let database = try #require(http.databases["marketplace-chat"])
            let desk = try await Traders.list(http, aoife, title: "Desk", price: 4000, category: "furniture")

            // Another network's student and an id of nothing are answered alike; one's own is not reported.
            let foreign = try await Self.report(http, carla, "listing", desk)
            let nothing = try await Self.report(http, carla, "listing", UUID().uuidString)
            #expect(foreign.status == 404 && foreign.json?["detail"] == nothing.json?["detail"], "\(foreign.text)")
            let own = try await Self.report(http, aoife, "listing", desk)
            #expect(own.status == 400 && Traders.errorFields(own) == ["id"], "\(own.text)")

            #expect(try await Self.report(http, brian, "listing", desk).status == 201)
            #expect(try await Self.report(http, brian, "listing", desk).status == 409, "one report per user")
            #expect(try await Self.report(http, dara, "listing", desk).status == 201)
            #expect(Traders.titles(try await http.get("/v1/marketplace/listings", headers: brian)) == ["Desk"], "two reporters hide nothing")
            #expect(try await Self.report(http, eoin, "listing", desk, reason: "prohibited").status == 201)

            // Three: out of the network's sight until decided; its seller sees it hidden.
            #expect(Traders.titles(try await http.get("/v1/marketplace/listings", headers: brian)).isEmpty)
            #expect(try await http.get("/v1/marketplace/listings/\(desk)", headers: brian).status == 404)
            #expect(try await http.get("/v1/marketplace/listings/\(desk)", headers: aoife).json?["state"] == "hidden")

            // The queue is for moderators.
            #expect(try await http.get("/v1/moderation/cases", headers: brian).status == 403)
            let caseID = try await Self.openCase(http, maeve, about: desk)
            let detail = try await http.get("/v1/moderation/cases/\(caseID)", headers: maeve)
            #expect(detail.json?["reporters"] == 3 && detail.json?["hidden"] == true && detail.json?["account"]?["username"] == "aoife", "\(detail.text)")
            #expect(Traders.items(detail, "reports").count == 3 && detail.json?["snapshot"]?["title"] == "Desk", "\(detail.text)")
            #expect(!detail.text.contains("brian") && !detail.text.contains("dara"), "reporters are not named: \(detail.text)")
            // At rest the snapshot is sealed.
            #expect(try await ChatRouteTests.count(
                "SELECT count(*)::int FROM moderation_cases WHERE snapshot IS NOT NULL AND position('Desk'::bytea IN snapshot) = 0", in: database) == 1)

            // Dismissed: back in the feed; the case closes with its snapshot and key; once only.
            let note = #"{"action":"dismiss","note":"A desk, as described."}"#
            let dismissed = try await Self.decide(http, maeve, caseID, note)
            #expect(dismissed.status == 201 && dismissed.json?["moderator"]?["username"] == "maeve", "\(dismissed.text)")
            #expect(try await Self.decide(http, maeve, caseID, note).status == 409)
            #expect(Traders.titles(try await http.get("/v1/marketplace/listings", headers: brian)) == ["Desk"])
            #expect(try await ChatRouteTests.count("SELECT count(*)::int FROM moderation_cases WHERE snapshot IS NOT NULL", in: database) == 0)
            #expect(try await ChatRouteTests.count("SELECT count(*)::int FROM account_keys WHERE account_id = '\(caseID)'", in: database) == 0)
            #expect(try await Self.pushes(database, to: traders.aoife).isEmpty, "a dismissal tells no one")

            // Reported again, removed: a new case; the seller is told and may appeal.
            #expect(try await Self.report(http, dara, "listing", desk).status == 201)
            let second = try await Self.openCase(http, maeve, about: desk)
            #expect(second != caseID)
            let removed = try await Self.decide(http, maeve, second, #"{"action":"remove","note":"Sold elsewhere as stolen."}"#)
            #expect(removed.status == 201 && removed.json?["action"] == "remove", "\(removed.text)")
            #expect(try await http.get("/v1/marketplace/listings/\(desk)", headers: aoife).status == 404)
            let standing = try await http.get("/v1/marketplace/standing", headers: aoife)
            #expect(standing.json?["suspended"] == false && Traders.items(standing, "notices").first?["listingTitle"] == "Desk", "\(standing.text)")
            #expect(Traders.items(standing, "notices").first?["appealable"] == true)
            #expect(try await Self.pushes(database, to: traders.aoife).count == 1)

            // Closed cases, the latest first, paged by after as every list is.
            let closed = Traders.items(try await http.get("/v1/moderation/cases?closed=true", headers: maeve), "cases")
            #expect(closed.compactMap { if case .string(let id)? = $0["id"] { id } else { nil } } == [second, caseID], "\(closed)")
            #expect(closed.first?["decision"] == nil && closed.allSatisfy { $0["open"] == false })
            let latest = try await http.get("/v1/moderation/cases?closed=true&limit=1", headers: maeve)
            let next = try #require(latest.json?["nextAfter"].flatMap { if case .number(let n) = $0 { Int64(n) } else { nil } }, "\(latest.text)")
            let older = Traders.items(try await http.get("/v1/moderation/cases?closed=true&limit=1&after=\(next)", headers: maeve), "cases")
            #expect(older.compactMap { if case .string(let id)? = $0["id"] { id } else { nil } } == [caseID], "\(older)")

            // The audit log: both decisions, the latest first, with their moderator.
            let log = Traders.items(try await http.get("/v1/moderation/log", headers: maeve), "decisions")
            #expect(log.map { $0["action"] } == ["remove", "dismiss"] && log.allSatisfy { $0["moderator"]?["username"] == "maeve" }, "\(log)")
            #expect(try await http.get("/v1/moderation/log", headers: aoife).status == 403)
        }
    }

    @Test func aReportedMessageStaysSealedForTheModeratorsUntilTheCaseCloses() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (dana, eoin, fiona) = (UUID(), UUID(), UUID())
            let danaHeaders = try await http.signedIn(dana, as: ChatRouteTests.nebula("dana"))
            let eoinHeaders = try await http.signedIn(eoin, as: ChatRouteTests.nebula("eoin"))
            let fionaHeaders = try await http.signedIn(fiona, as: ChatRouteTests.nebula("fiona"))
            let maeve = try await http.signedIn(UUID(), as: Self.moderator)
            let database = try #require(http.databases["marketplace-chat"])
            _ = try await http.get("/v1/conversations", headers: eoinHeaders)
            let conversation = try #require(Traders.string(try await http.post("/v1/conversations", json: #"{"username":"eoin"}"#, headers: danaHeaders), "id"))
            let send = { @Sendable (text: String) in
                try #require(Traders.string(try await http.post("/v1/conversations/\(conversation)/messages", json: #"{"text":"\#(text)"}"#, headers: danaHeaders), "id"))
            }
            let scam = try await send("Send me your bank login")
            let insult = try await send("You are a fool")

            // Only the one who received it may report it; someone else and an unknown id are answered alike.
            let outsider = try await Self.report(http, fionaHeaders, "message", scam)
            let unknown = try await Self.report(http, fionaHeaders, "message", UUID().uuidString)
            #expect(outsider.status == 404 && outsider.json?["detail"] == unknown.json?["detail"], "\(outsider.text)")
            #expect(try await Self.report(http, danaHeaders, "message", scam).status == 404, "one's own message")
            #expect(try await Self.report(http, eoinHeaders, "message", scam).status == 201)
            #expect(try await Self.report(http, eoinHeaders, "message", insult, reason: "harassment").status == 201)
            #expect(try await ChatRouteTests.count(
                "SELECT count(*)::int FROM moderation_cases WHERE position('bank login'::bytea IN snapshot) > 0", in: database) == 0, "sealed at rest")

            // Its sender deletes it: the moderators still read what was reported.
            #expect(try await http.send("DELETE", "/v1/conversations/\(conversation)/messages/\(scam)", headers: danaHeaders).status == 200)
            let scamCase = try await Self.openCase(http, maeve, about: scam)
            let detail = try await http.get("/v1/moderation/cases/\(scamCase)", headers: maeve)
            #expect(detail.json?["snapshot"]?["message"]?["text"] == "Send me your bank login" && detail.json?["university"] == nil, "\(detail.text)")
            #expect(detail.json?["account"]?["username"] == "dana")

            // A warning closes the case: the snapshot goes; Dana is told and may appeal once.
            let warned = try await Self.decide(http, maeve, scamCase, #"{"action":"warn","note":"Never ask for bank details."}"#)
            #expect(warned.status == 201, "\(warned.text)")
            let closed = try await http.get("/v1/moderation/cases/\(scamCase)", headers: maeve)
            #expect(closed.json?["open"] == false && closed.json?["snapshot"] == nil && closed.json?["decision"]?["action"] == "warn", "\(closed.text)")
            #expect(try await Self.pushes(database, to: dana).count == 1)
            let decision = try #require(Traders.string(warned, "id"))
            #expect(try await Self.decide(http, maeve, scamCase, #"{"action":"suspend","note":"x","days":0}"#).status == 400, "days from 1")

            // Removed: gone for both sides.
            let insultCase = try await Self.openCase(http, maeve, about: insult)
            #expect(try await Self.decide(http, maeve, insultCase, #"{"action":"remove","note":"Abuse."}"#).status == 201)
            let history = Traders.items(try await http.get("/v1/conversations/\(conversation)/messages", headers: eoinHeaders), "messages")
            let gone = try #require(history.first { $0["id"] == .string(insult) })
            #expect(gone["deleted"] == true && gone["text"] == nil, "\(gone)")

            let appeal = #"{"decisionId":"\#(decision)","text":"It was a joke between friends."}"#
            #expect(try await http.post("/v1/marketplace/appeals", json: appeal, headers: eoinHeaders).status == 404, "not a decision about Eoin")
            let appealed = try await http.post("/v1/marketplace/appeals", json: appeal, headers: danaHeaders)
            #expect(appealed.status == 201 && appealed.json?["appeal"] == "open" && appealed.json?["appealable"] == false, "\(appealed.text)")
            #expect(try await http.post("/v1/marketplace/appeals", json: appeal, headers: danaHeaders).status == 409)
            let upheld = try await http.post("/v1/moderation/appeals/\(decision)/decision", json: #"{"action":"uphold","note":"Not a joke."}"#, headers: maeve)
            #expect(upheld.status == 201 && upheld.json?["appealOf"] == .string(decision), "\(upheld.text)")
            let standing = Traders.items(try await http.get("/v1/marketplace/standing", headers: danaHeaders), "notices")
            #expect(standing.first { $0["decisionId"] == .string(decision) }?["appeal"] == "upheld", "\(standing)")
        }
    }

    @Test func aSuspensionEndsMarketplaceUseUntilAnAppealOverturnsIt() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let (aoife, brian, _) = try await traders.headers(http)
            let maeve = try await http.signedIn(UUID(), as: Self.moderator)
            let brianID = traders.brian.uuidString.lowercased()
            _ = try await Traders.list(http, brian, title: "Lamp", price: 900, category: "furniture")

            #expect(try await Self.report(http, aoife, "account", brianID, reason: "fake_account").status == 201)
            let caseID = try await Self.openCase(http, maeve, about: brianID)
            #expect(try await Self.decide(http, maeve, caseID, #"{"action":"remove","note":"x"}"#).status == 400, "an account is not removed")
            let suspended = try await Self.decide(http, maeve, caseID, #"{"action":"suspend","note":"Impersonates a lecturer."}"#)
            #expect(suspended.status == 201 && suspended.json?["suspendedUntil"] == nil, "\(suspended.text)")
            let decision = try #require(Traders.string(suspended, "id"))

            // Suspended: no marketplace, no listings in sight; the standing says so and why.
            let refused = try await http.get("/v1/marketplace/listings", headers: brian)
            #expect(refused.status == 403 && refused.text.contains("/v1/marketplace/standing"), "\(refused.text)")
            #expect(Traders.titles(try await http.get("/v1/marketplace/listings", headers: aoife)).isEmpty)
            let standing = try await http.get("/v1/marketplace/standing", headers: brian)
            #expect(standing.json?["suspended"] == true && Traders.items(standing, "notices").first?["note"] == "Impersonates a lecturer.", "\(standing.text)")

            // The appeal: a moderator sees it; only uphold or overturn answer it; overturned, all is back.
            #expect(try await http.post("/v1/marketplace/appeals", json: #"{"decisionId":"\#(decision)","text":"I am a student."}"#, headers: brian).status == 201)
            let open = Traders.items(try await http.get("/v1/moderation/appeals", headers: maeve), "appeals")
            #expect(open.count == 1 && open.first?["text"] == "I am a student.", "\(open)")
            let wrong = try await http.post("/v1/moderation/appeals/\(decision)/decision", json: #"{"action":"dismiss","note":"x"}"#, headers: maeve)
            #expect(wrong.status == 400 && Traders.errorFields(wrong) == ["action"], "\(wrong.text)")
            let overturned = try await http.post("/v1/moderation/appeals/\(decision)/decision", json: #"{"action":"overturn","note":"Verified."}"#, headers: maeve)
            #expect(overturned.status == 201, "\(overturned.text)")
            #expect(try await http.get("/v1/marketplace/listings", headers: brian).status == 200)
            #expect(Traders.titles(try await http.get("/v1/marketplace/listings", headers: aoife)) == ["Lamp"])
            #expect(try await http.post("/v1/moderation/suspensions/\(brianID)/lift", json: #"{"note":"x"}"#, headers: maeve).status == 404, "none in force")

            // Suspended again for a day, and lifted early.
            #expect(try await Self.report(http, aoife, "account", brianID).status == 201)
            let again = try await Self.openCase(http, maeve, about: brianID)
            let day = try await Self.decide(http, maeve, again, #"{"action":"suspend","note":"Spam.","days":1}"#)
            #expect(day.status == 201 && day.json?["suspendedUntil"] != nil, "\(day.text)")
            #expect(try await http.get("/v1/marketplace/listings", headers: brian).status == 403)
            #expect(try await http.post("/v1/moderation/suspensions/\(brianID)/lift", json: #"{"note":"Talked it through."}"#, headers: maeve).status == 201)
            #expect(try await http.get("/v1/marketplace/listings", headers: brian).status == 200)
            let log = Traders.items(try await http.get("/v1/moderation/log", headers: maeve), "decisions").map { $0["action"] }
            #expect(log == ["lift", "suspend", "overturn", "suspend"], "\(log)")

            // Brian's account is erased: the log keeps its decisions about "a deleted user".
            _ = try await Traders.erase(traders.brian, in: try #require(http.databases["marketplace-chat"]))
            let kept = Traders.items(try await http.get("/v1/moderation/log", headers: maeve), "decisions")
            #expect(kept.count == 4 && kept.allSatisfy { $0["account"]?["username"] == "a deleted user" && $0["account"]?["id"] == nil }, "\(kept)")
        }
    }
}
}
