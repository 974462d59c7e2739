import Contracts
import Envelope
import Foundation
import PaymentsContract
@testable import PaymentsService
import PostgresNIO
import PostgresSupport
import Bus
import ServiceKit
import Testing
import TestSupport

/// Every payments suite that runs a service stack in process is nested here, one test at a time.
@Suite(.serialized, .timeLimit(.minutes(10))) struct PaymentsStackTests {}

/// Fiona and Gerry of the fundraising app, as auth's tokens name them.
struct Donors {
    let fiona = UUID(), gerry = UUID()

    static func caller(_ username: String, app: String = "fundraising") -> TestCaller { TestCaller(username: username, app: app) }

    func headers(_ http: InProcessHTTP) async throws -> (fiona: [String: String], gerry: [String: String]) {
        (try await http.signedIn(fiona, as: Self.caller("fiona")), try await http.signedIn(gerry, as: Self.caller("gerry")))
    }

    static func campaign(title: String, goal: Int64 = 500_000, endsIn days: Int = 30, category: String = "community") -> String {
        let ends = RFC3339.string(from: Date().addingTimeInterval(Double(days) * 86_400))
        return #"{"title":"\#(title)","story":"Why it matters.\nEvery euro counts.","goal":{"minorUnits":\#(goal),"currency":"EUR"},"#
            + #""endsAt":"\#(ends)","category":"\#(category)","beneficiary":"3rd Dublin Scouts"}"#
    }

    static func start(_ http: InProcessHTTP, _ headers: [String: String], title: String, goal: Int64 = 500_000, endsIn days: Int = 30) async throws
        -> String
    {
        let created = try await http.post("/v1/campaigns", json: campaign(title: title, goal: goal, endsIn: days), headers: headers)
        #expect(created.status == 201, "\(created.text)")
        return try #require(string(created, "id"))
    }

    static func string(_ reply: HTTPTestClient.Reply, _ key: String) -> String? {
        if case .string(let value)? = reply.json?[key] { value } else { nil }
    }

    static func items(_ reply: HTTPTestClient.Reply, _ key: String) -> [JSONValue] {
        if case .array(let items)? = reply.json?[key] { items } else { [] }
    }

    static func titles(_ reply: HTTPTestClient.Reply) -> [String] {
        items(reply, "campaigns").compactMap { if case .string(let title)? = $0["title"] { title } else { nil } }
    }

    static func errorFields(_ reply: HTTPTestClient.Reply) -> Set<String> {
        guard case .array(let errors)? = reply.json?["fields"] else { return [] }
        return Set(errors.compactMap { error -> String? in if case .string(let field)? = error["field"] { field } else { nil } })
    }

    /// A donation of `gross` cents from `donor` that succeeded with `fee` kept, as the processor path records it.
    static func donate(_ database: Database, to campaign: String, from donor: UUID, username: String? = nil, gross: Int64, fee: Int64 = 0,
                       anonymous: Bool = false) async throws -> UUID
    {
        let donations = DonationStore(database: database, ledger: Ledger(database: database))
        return try await database.transaction { connection in
            if let username { try await PeopleStore(database: database).record(donor, username: username, on: connection) }
            let id = try await donations.open(campaign: UUID(uuidString: campaign)!, donor: donor, anonymous: anonymous, gross: gross, on: connection)
            try await donations.succeed(id, fee: fee, on: connection)
            return id
        }
    }
}

extension PaymentsStackTests {
@Suite(.timeLimit(.minutes(3))) struct CampaignRouteTests {
    let donors = Donors()

    @Test func aCampaignIsStartedReadWithItsLedgerFiguresChangedAndClosedByItsOwnerOnly() async throws {
        try await InProcessStack.with([.payments]) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])

            // Bad input names its fields; another app is refused.
            let dollars = Donors.campaign(title: "Roof", goal: 500_000).replacingOccurrences(of: "EUR", with: "USD")
            let wrong = try await http.post("/v1/campaigns", json: dollars, headers: fiona)
            #expect(wrong.status == 400 && Donors.errorFields(wrong) == ["goal.currency"], "\(wrong.text)")
            let past = try await http.post("/v1/campaigns", json: Donors.campaign(title: "Roof repairs", endsIn: -1), headers: fiona)
            #expect(past.status == 400 && Donors.errorFields(past) == ["endsAt"], "\(past.text)")
            let market = try await http.signedIn(UUID(), as: Donors.caller("mark", app: "marketplace"))
            #expect(try await http.get("/v1/campaigns", headers: market).status == 403)

            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall")
            let detail = try await http.get("/v1/campaigns/\(roof)", headers: gerry)
            #expect(detail.status == 200 && detail.json?["campaign"]?["owner"]?["username"] == "fiona" && detail.json?["campaign"]?["state"] == "open")
            #expect(detail.json?["statistics"]?["gross"]?["minorUnits"] == 0 && detail.json?["campaign"]?["story"] == "Why it matters.\nEvery euro counts.")

            // Donations reach the figures through the ledger: gross, refunds, fees, donors, the average, the day.
            let first = try await Donors.donate(database, to: roof, from: donors.gerry, username: "gerry", gross: 2_500, fee: 60)
            _ = try await Donors.donate(database, to: roof, from: donors.gerry, gross: 10_000, fee: 170, anonymous: true)
            _ = try await Donors.donate(database, to: roof, from: UUID(), gross: 5_050, fee: 100)
            let ledger = Ledger(database: database), donations = DonationStore(database: database, ledger: ledger)
            #expect(try await database.transaction { try await donations.giveBack(first, amount: 1_000, as: .refund, transfer: UUID(), on: $0) } == 1_000)
            let figures = try await http.get("/v1/campaigns/\(roof)", headers: gerry)
            let statistics = try #require(figures.json?["statistics"])
            #expect(statistics["gross"]?["minorUnits"] == 17_550 && statistics["refunded"]?["minorUnits"] == 1_000 && statistics["fees"]?["minorUnits"] == 330)
            #expect(statistics["net"]?["minorUnits"] == 16_220 && statistics["donors"] == 2 && statistics["donations"] == 3, "\(statistics)")
            #expect(statistics["averageGift"]?["minorUnits"] == 5_516 && figures.json?["campaign"]?["raised"]?["minorUnits"] == 16_550)
            guard case .array(let latest)? = statistics["recent"], case .array(let days)? = statistics["daily"] else { Issue.record("\(statistics)"); return }
            #expect(latest.count == 3 && latest[1]["donor"] == nil && latest[2]["donor"] == "gerry" && latest[2]["amount"]?["minorUnits"] == 2_500, "\(latest)")
            let daySum = days.reduce(into: 0) { sum, day in if case .number(let amount)? = day["amount"]?["minorUnits"] { sum += amount } }
            #expect((1...2).contains(days.count) && daySum == 16_550, "one Dublin day, two across its midnight: \(days)")

            // Changed by its owner only: someone else's is as if it did not exist; a stale version is a conflict.
            let patch = { @Sendable (json: String, headers: [String: String], id: String) in
                try await http.send("PATCH", "/v1/campaigns/\(id)", body: Array(json.utf8), headers: headers)
            }
            let stranger = try await patch(#"{"version":1,"title":"Mine now"}"#, gerry, roof)
            let nowhere = try await patch(#"{"version":1,"title":"Mine now"}"#, gerry, UUID().uuidString)
            #expect(stranger.status == 404 && stranger.json?["detail"] == nowhere.json?["detail"], "\(stranger.text)")
            let below = try await patch(#"{"version":1,"goal":{"minorUnits":10000,"currency":"EUR"}}"#, fiona, roof)
            #expect(below.status == 400 && Donors.errorFields(below) == ["goal"], "not below what it raised: \(below.text)")
            let changed = try await patch(#"{"version":1,"title":"A new roof for the scout hall"}"#, fiona, roof)
            #expect(changed.status == 200 && changed.json?["version"] == 2 && changed.json?["title"] == "A new roof for the scout hall", "\(changed.text)")
            #expect(try await patch(#"{"version":1,"title":"Again"}"#, fiona, roof).status == 409)

            // Closed by its owner: no more changes, its texts deleted, its money history kept.
            #expect(try await http.post("/v1/campaigns/\(roof)/close", json: "{}", headers: gerry).status == 404)
            let closed = try await http.post("/v1/campaigns/\(roof)/close", json: "{}", headers: fiona)
            #expect(closed.status == 200 && closed.json?["state"] == "closed" && closed.json?["title"] == nil && closed.json?["story"] == nil, "\(closed.text)")
            #expect(try await patch(#"{"version":3,"title":"Back"}"#, fiona, roof).status == 409)
            let texts = try await database.transaction { connection in
                try await connection.query("SELECT count(*)::int FROM campaigns WHERE (title IS NOT NULL OR story IS NOT NULL) AND id <> \(UUID(uuidString: Payments.projectCampaignId)!)", logger: database.logger)
                    .decode(Int.self).first { _ in true } ?? -1
            }
            #expect(texts == 0)
            #expect(try await http.get("/v1/campaigns/\(roof)", headers: gerry).json?["statistics"]?["gross"]?["minorUnits"] == 17_550)
            #expect(Donors.items(try await http.get("/v1/me/campaigns", headers: fiona), "campaigns").count == 1)
        }
    }

    @Test func anErasedAccountLosesItsCampaignsTextsAndNameWhileItsMoneyHistoryStaysWhole() async throws {
        try await InProcessStack.with([.payments]) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall")
            let choir = try await Donors.start(http, gerry, title: "Choir robes")
            _ = try await Donors.donate(database, to: roof, from: donors.gerry, username: "gerry", gross: 4_000, fee: 80)
            _ = try await Donors.donate(database, to: choir, from: donors.fiona, username: "fiona", gross: 2_000, fee: 50)
            #expect(try await http.send("PUT", "/v1/campaigns/\(choir)/bookmark", headers: fiona).status == 200)
            let count = { @Sendable (sql: String) in
                try await database.transaction { connection in
                    try await connection.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).decode(Int.self).first { _ in true } ?? -1
                }
            }
            let entries = try await count("SELECT count(*)::int FROM ledger_entries")

            let context = RequestContext(attributes: .init(source: "urn:melon:auth", type: Payments.Account.Erase.type), logger: .init(label: "erase"), bus: nil)
            let erased = try await ErasureHandler(database: database).erase(AccountErasure(account: donors.fiona.uuidString.lowercased(), email: "f@x.ie"), context)
            #expect(erased == .init(campaignsClosed: 1, bookmarksDeleted: 1))
            let again = try await ErasureHandler(database: database).erase(AccountErasure(account: donors.fiona.uuidString.lowercased(), email: "f@x.ie"), context)
            #expect(again == .init(campaignsClosed: 0, bookmarksDeleted: 0), "a repeat finds nothing")

            let gone = try await http.get("/v1/campaigns/\(roof)", headers: gerry)
            #expect(gone.json?["campaign"]?["state"] == "closed" && gone.json?["campaign"]?["title"] == nil && gone.json?["campaign"]?["owner"] == nil, "\(gone.text)")
            #expect(gone.json?["statistics"]?["gross"]?["minorUnits"] == 4_000, "its money history stays")
            let given = try await http.get("/v1/campaigns/\(choir)", headers: gerry)
            guard case .array(let recent)? = given.json?["statistics"]?["recent"] else { Issue.record("\(given.text)"); return }
            #expect(recent.first?["donor"] == nil && given.json?["statistics"]?["donors"] == 1, "her gift stays, without her name: \(recent)")
            #expect(try await count("SELECT count(*)::int FROM ledger_entries") == entries)
            #expect(try await count("SELECT count(*)::int FROM people WHERE account_id = '\(donors.fiona.uuidString.lowercased())'") == 0)
            #expect(try await count(
                "SELECT count(*)::int FROM ledger_accounts WHERE account_id = '\(donors.fiona.uuidString.lowercased())'") == 0)
            #expect(try await count("SELECT count(*)::int FROM donations WHERE donor_id = '\(donors.fiona.uuidString.lowercased())'") == 0)
            #expect(try await database.transaction { try await Ledger(database: database).verify(on: $0) }.holds)
        }
    }

    @Test func listsSortAndPageStablyAndSearchTitles() async throws {
        try await InProcessStack.with([.payments]) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let bikes = try await Donors.start(http, fiona, title: "Bikes for the youth club", goal: 100_000, endsIn: 40)
            let library = try await Donors.start(http, fiona, title: "Library books", goal: 200_000, endsIn: 10)
            let garden = try await Donors.start(http, gerry, title: "Community garden", goal: 50_000, endsIn: 20)
            _ = try await Donors.donate(database, to: bikes, from: donors.gerry, gross: 85_000)
            _ = try await Donors.donate(database, to: library, from: donors.gerry, gross: 90_000)
            _ = try await Donors.donate(database, to: garden, from: donors.fiona, gross: 10_000)

            let list = { @Sendable (query: String) in try await http.get("/v1/campaigns?\(query)", headers: gerry) }
            #expect(Donors.titles(try await list("sort=oldest")) == ["Bikes for the youth club", "Library books", "Community garden"])
            #expect(Donors.titles(try await list("sort=ending_soon")) == ["Library books", "Community garden", "Bikes for the youth club"])
            #expect(Donors.titles(try await list("sort=most_funded")) == ["Library books", "Bikes for the youth club", "Community garden"])
            #expect(Donors.titles(try await list("sort=nearly_there")) == ["Bikes for the youth club"], "85 % of its goal; the others below 80 %")
            #expect(Donors.titles(try await list("q=library")) == ["Library books"])
            // No sort: the seed's "ascending order of creation time", the oldest first, and its pages go on in that order.
            #expect(Donors.titles(try await http.get("/v1/campaigns", headers: gerry)) == ["Bikes for the youth club", "Library books", "Community garden"])
            let unsorted = try await list("limit=2")
            #expect(Donors.titles(unsorted) == ["Bikes for the youth club", "Library books"], "\(unsorted.text)")
            let rest = try #require(Donors.string(unsorted, "nextAfter"))
            #expect(Donors.titles(try await list("limit=2&after=\(rest)")) == ["Community garden"])

            // Pages: a new campaign and a donation in between move nothing already paged.
            let first = try await list("sort=newest&limit=2")
            #expect(Donors.titles(first) == ["Community garden", "Library books"])
            let after = try #require(Donors.string(first, "nextAfter"))
            _ = try await Donors.start(http, fiona, title: "Choir robes")
            let second = try await list("sort=newest&limit=2&after=\(after)")
            #expect(Donors.titles(second) == ["Bikes for the youth club"] && Donors.string(second, "nextAfter") == nil, "\(second.text)")
            let funded = try await list("sort=most_funded&limit=1")
            let next = try #require(Donors.string(funded, "nextAfter"))
            _ = try await Donors.donate(database, to: garden, from: donors.fiona, gross: 1_000)
            #expect(Donors.titles(try await list("sort=most_funded&limit=1&after=\(next)")) == ["Bikes for the youth club"])
            let mixed = try await list("sort=oldest&after=\(next)")
            #expect(mixed.status == 400 && Donors.errorFields(mixed) == ["after"], "a cursor of another sort: \(mixed.text)")
            #expect(try await list("after=not-a-cursor").status == 400)

            // Bookmarks: kept, listed latest first, removed; a campaign that is not there is not bookmarked.
            #expect(try await http.send("PUT", "/v1/campaigns/\(bikes)/bookmark", headers: gerry).json?["bookmarked"] == true)
            #expect(try await http.send("PUT", "/v1/campaigns/\(library)/bookmark", headers: gerry).status == 200)
            #expect(try await http.send("PUT", "/v1/campaigns/\(UUID())/bookmark", headers: gerry).status == 404)
            #expect(Donors.titles(try await http.get("/v1/me/bookmarks", headers: gerry)) == ["Library books", "Bikes for the youth club"])
            #expect(try await http.send("DELETE", "/v1/campaigns/\(bikes)/bookmark", headers: gerry).json?["removed"] == true)
            #expect(try await http.send("DELETE", "/v1/campaigns/\(bikes)/bookmark", headers: gerry).json?["removed"] == false)
            #expect(Donors.titles(try await http.get("/v1/me/bookmarks", headers: gerry)) == ["Library books"])
            #expect(Donors.items(try await http.get("/v1/me/bookmarks", headers: fiona), "campaigns").isEmpty)
        }
    }
}
}
