import Contracts
import Envelope
import Foundation
import PaymentsContract
@testable import PaymentsService
import PostgresNIO
import PostgresSupport
import Testing
import TestSupport

extension PaymentsStackTests {
/// The lists on what campaigns raised (most funded, nearly there) sort on a figure that moves: a
/// walk through their pages is read as of its first page, so money given or refunded between pages
/// neither loses a campaign nor shows one twice.
@Suite(.timeLimit(.minutes(3))) struct CampaignPageTests {
    let donors = Donors()

    /// Every page of a walk in `sort`, one campaign a page, with `between` run after the first page.
    static func walk(_ http: InProcessHTTP, _ headers: [String: String], _ sort: String, between: () async throws -> Void) async throws -> [String] {
        var titles: [String] = [], after: String?, first = true
        repeat {
            let page = try await http.get("/v1/campaigns?sort=\(sort)&limit=1" + (after.map { "&after=\($0)" } ?? ""), headers: headers)
            #expect(page.status == 200, "\(page.text)")
            titles += Donors.titles(page)
            after = Donors.string(page, "nextAfter")
            if first { try await between() }
            first = false
        } while after != nil && titles.count < 10
        return titles
    }

    @Test func walksOnWhatCampaignsRaisedSeeEachCampaignOnceWhileDonationsAndRefundsArrive() async throws {
        try await InProcessStack.with([.payments]) { http in
            let (fiona, gerry) = try await donors.headers(http)
            let database = try #require(http.databases["payments"])
            let gift: @Sendable (String, Int64) async throws -> String = { campaign, cents in
                let given = try await DonationRouteTests.give(http, gerry, to: campaign, cents: cents)
                #expect(given.json?["status"] == "succeeded", "\(given.text)")
                return try #require(Donors.string(given, "id"))
            }

            // Most funded: the roof holds 600 euro, the bikes 400, the garden 200 (of 5,000 each).
            let roof = try await Donors.start(http, fiona, title: "New roof for the scout hall")
            let bikes = try await Donors.start(http, fiona, title: "Bikes for the youth club")
            let garden = try await Donors.start(http, fiona, title: "Community garden")
            let roofGift = try await gift(roof, 60_000)
            _ = try await Donors.donate(database, to: bikes, from: donors.gerry, gross: 40_000)
            _ = try await Donors.donate(database, to: garden, from: donors.gerry, gross: 20_000)
            // After the first page (the roof), the garden is given 500 euro (700: above the cursor) and
            // the roof gives 500 back (100: below it). Read live, the walk lost the garden and showed the roof twice.
            let funded = try await Self.walk(http, gerry, "most_funded") {
                _ = try await gift(garden, 50_000)
                let back = try await RefundTests.refund(http, fiona, roofGift, cents: 50_000)
                #expect(back.status == 201 && back.json?["status"] == "succeeded", "\(back.text)")
            }
            #expect(funded == ["New roof for the scout hall", "Bikes for the youth club", "Community garden"], "\(funded)")
            // A new walk reads the campaigns as they are now.
            let now = try await http.get("/v1/campaigns?sort=most_funded", headers: gerry)
            #expect(Donors.titles(now) == ["Community garden", "Bikes for the youth club", "New roof for the scout hall"], "\(now.text)")
            let shown = Donors.items(now, "campaigns").map { $0["raised"]?["minorUnits"] }
            #expect(shown == [70_000, 40_000, 10_000], "\(shown)")

            // Nearly there (of 1,000 euro each): the choir at 90 %, the kit at 88 %, the library at 85 %.
            // After the first page (the choir), the library is given 100 euro (95 %: above the cursor)
            // and the kit gives 100 back (78 %: no longer nearly there). Read live, the walk ended at the choir.
            let choir = try await Donors.start(http, fiona, title: "Choir robes", goal: 100_000)
            let kit = try await Donors.start(http, fiona, title: "Kit for the team", goal: 100_000)
            let library = try await Donors.start(http, fiona, title: "Library books", goal: 100_000)
            _ = try await Donors.donate(database, to: choir, from: donors.gerry, gross: 90_000)
            let kitGift = try await gift(kit, 88_000)
            _ = try await Donors.donate(database, to: library, from: donors.gerry, gross: 85_000)
            let nearly = try await Self.walk(http, gerry, "nearly_there") {
                _ = try await gift(library, 10_000)
                #expect(try await RefundTests.refund(http, fiona, kitGift, cents: 10_000).json?["status"] == "succeeded")
            }
            #expect(nearly == ["Choir robes", "Kit for the team", "Library books"], "\(nearly)")
            #expect(Donors.titles(try await http.get("/v1/campaigns?sort=nearly_there", headers: gerry)) == ["Library books", "Choir robes"])

            // A cursor of these sorts says as of which transfer; one without, or one a walk too long ago made, is refused naming after.
            let bare = PageCursor.text(["most_funded", "70000", "1"])
            let refused = try await http.get("/v1/campaigns?sort=most_funded&after=\(bare)", headers: gerry)
            #expect(refused.status == 400 && Donors.errorFields(refused) == ["after"], "\(refused.text)")
            let first = try await http.get("/v1/campaigns?sort=most_funded&limit=1", headers: gerry)
            let old = try #require(Donors.string(first, "nextAfter"))
            try await database.transaction { connection in
                _ = try await connection.query(
                    "SELECT setval(pg_get_serial_sequence('ledger_transfers', 'seq'), \(Payments.Bounds.walkSpan * 2))", logger: database.logger)
            }
            _ = try await Donors.donate(database, to: bikes, from: donors.gerry, gross: 1_000)
            let stale = try await http.get("/v1/campaigns?sort=most_funded&limit=1&after=\(old)", headers: gerry)
            #expect(stale.status == 400 && Donors.errorFields(stale) == ["after"], "\(stale.text)")
        }
    }
}
}
