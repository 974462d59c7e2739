import Contracts
import Envelope
import Foundation
import HouseholdService
@testable import PaymentsService
import PostgresNIO
import PostgresSupport
import Testing
import TestSupport

extension PaymentsStackTests {
/// A household debt paid in the household app: payments charges the payer through the sandbox
/// (the same path as a donation), household says first what is owed, and the settlement reaches
/// household through payments' outbox, once.
@Suite(.timeLimit(.minutes(3))) struct SettleUpTests {
    let ana = UUID(), ben = UUID(), cara = UUID(), dan = UUID()

    /// A session of the household app.
    static let householdApp = TestCaller(app: "household")

    static func pay(_ http: InProcessHTTP, _ headers: [String: String], household: String, to member: String, cents: Int64, currency: String = "EUR",
                    method: String = "pm_card_visa", key: String = UUID().uuidString) async throws -> HTTPTestClient.Reply {
        let body = #"{"householdId":"\#(household)","to":"\#(member)","amount":{"minorUnits":\#(cents),"currency":"\#(currency)"},"paymentMethod":"\#(method)"}"#
        return try await http.post("/v1/settle-ups", json: body, headers: headers.merging(["Idempotency-Key": key]) { $1 })
    }

    static func settlements(_ http: InProcessHTTP, _ household: String, _ headers: [String: String]) async throws -> [JSONValue] {
        if case .array(let rows)? = try await http.get("/v1/households/\(household)/settlements", headers: headers).json?["settlements"] { rows } else { [] }
    }

    @Test func aDebtPaidInTheAppIsChargedOnceAndSettledOnceInTheHousehold() async throws {
        try await InProcessStack.with([.household, .payments]) { http in
            let payments = try #require(http.databases["payments"])
            let households = try #require(http.databases["household"])
            let (ana, ben, cara) = (try await http.signedIn(self.ana, as: Self.householdApp), try await http.signedIn(self.ben, as: Self.householdApp),
                                    try await http.signedIn(self.cara, as: Self.householdApp))
            // Ana's flat with Ben and Cara; Ana pays 30 euro of electricity, split three ways: each owes her 10.
            let created = try await http.post("/v1/households", json: #"{"name":"14 Pearse Street","currency":"EUR"}"#, headers: ana)
            let flat = try #require(Donors.string(created, "id"))
            let code = try #require(Donors.string(try await http.post("/v1/households/\(flat)/invites", json: "{}", headers: ana), "code"))
            _ = try await http.post("/v1/households/join", json: #"{"code":"\#(code)"}"#, headers: ben)
            let joined = try await http.post("/v1/households/join", json: #"{"code":"\#(code)"}"#, headers: cara)
            var members: [UUID: String] = [:]
            if case .array(let list)? = joined.json?["members"] {
                for member in list { if case .string(let account)? = member["accountId"], case .string(let id)? = member["memberId"] { members[UUID(uuidString: account)!] = id } }
            }
            let (anaMember, caraMember) = (try #require(members[self.ana]), try #require(members[self.cara]))
            #expect(try await http.post("/v1/households/\(flat)/bills", json: #"{"title":"Electricity","amount":{"minorUnits":3000,"currency":"EUR"}}"#,
                                        headers: ana.merging(["Idempotency-Key": "bill"]) { $1 }).status == 201)

            // Ben pays Ana his 10 euro; his phone retries with the same key: one charge, one posting.
            let key = UUID().uuidString
            let paid = try await Self.pay(http, ben, household: flat, to: anaMember, cents: 1_000, key: key)
            #expect(paid.status == 201 && paid.json?["status"] == "succeeded" && paid.json?["processor"] == "sandbox" && paid.json?["to"] == .string(anaMember),
                    "\(paid.text)")
            let id = try #require(Donors.string(paid, "id"))
            let again = try await Self.pay(http, ben, household: flat, to: anaMember, cents: 1_000, key: key)
            #expect(again.status == 201 && Donors.string(again, "id") == id, "\(again.text)")
            #expect(try await DonationRouteTests.count(payments, "SELECT count(*)::int FROM ledger_transfers WHERE kind = 'settle_up'") == 1)
            // The money is held for Ana (a credit on her account), no karma moves, and the ledger holds.
            #expect(try await DonationRouteTests.count(
                payments, "SELECT (-balance)::int FROM ledger_accounts WHERE kind = 'member' AND account_id = '\(self.ana.uuidString.lowercased())'") == 1_000)
            #expect(try await DonationRouteTests.count(payments, "SELECT count(*)::int FROM ledger_accounts WHERE kind = 'karma' AND account_id IS NOT NULL") == 0)
            let proof = try await payments.transaction { try await Ledger(database: payments).verify(on: $0) }
            #expect(proof.holds, "\(proof)")
            #expect(try await http.get("/v1/settle-ups/\(id)", headers: ben).json?["status"] == "succeeded")

            // Until payments' outbox reaches household, Ben still owes there; a second payment meanwhile (another key) counts the first.
            #expect(try await Self.settlements(http, flat, ana).isEmpty)
            let twice = try await Self.pay(http, ben, household: flat, to: anaMember, cents: 500)
            #expect(twice.status == 400 && Donors.errorFields(twice) == ["amount"], "\(twice.text)")
            // Delivered twice (a lost acknowledgement), it is one settlement.
            try await payments.transaction { connection in
                try await connection.query(
                    """
                    INSERT INTO outbox (id, service, type, data, idempotency_key, created_at, next_attempt_at)
                    SELECT 'again-' || id, service, type, data, idempotency_key, created_at, next_attempt_at FROM outbox WHERE type = 'household.settlements.paid.v1'
                    """,
                    logger: payments.logger)
            }
            #expect(try await http.relayOutbox(of: "payments") >= 2)
            let recorded = try await Self.settlements(http, flat, ana)
            #expect(recorded.count == 1 && recorded.first?["paymentId"] == .string(id) && recorded.first?["confirmedAt"] != nil
                    && recorded.first?["amount"]?["minorUnits"] == .number(1_000), "\(recorded)")
            let told = try await households.sentRequests("notifications.push.send.v1").filter { $0["content"]?["eventType"] == "household.settlement.recorded" }
            #expect(told.count == 1 && told.first?["recipients"] == [.string(self.ana.uuidString.lowercased())], "\(told)")
            let balances = try await http.get("/v1/households/\(flat)/balances", headers: ana)
            #expect(BalanceReading.transfers(balances) == [[.string(caraMember), .string(anaMember), 1_000]], "only Cara owes now: \(balances.text)")

            // Ben owes nothing now; Cara cannot pay more than she owes, nor in another currency, nor Ben, whom she owes nothing.
            let nothing = try await Self.pay(http, ben, household: flat, to: anaMember, cents: 1_000)
            #expect(nothing.status == 400 && Donors.errorFields(nothing) == ["to"], "\(nothing.text)")
            let more = try await Self.pay(http, cara, household: flat, to: anaMember, cents: 1_001)
            #expect(more.status == 400 && Donors.errorFields(more) == ["amount"], "\(more.text)")
            let dollars = try await Self.pay(http, cara, household: flat, to: anaMember, cents: 1_000, currency: "USD")
            #expect(dollars.status == 400 && Donors.errorFields(dollars) == ["amount.currency"], "\(dollars.text)")
            let toBen = try await Self.pay(http, cara, household: flat, to: try #require(members[self.ben]), cents: 500)
            #expect(toBen.status == 400 && Donors.errorFields(toBen) == ["to"], "\(toBen.text)")
            // A declined card: failed with a safe reason, nothing posted, nothing for household.
            let declined = try await Self.pay(http, cara, household: flat, to: anaMember, cents: 1_000, method: "pm_card_visa_chargeDeclined")
            #expect(declined.status == 201 && declined.json?["status"] == "failed" && declined.json?["reason"] == "card_declined", "\(declined.text)")
            #expect(try await DonationRouteTests.count(payments, "SELECT count(*)::int FROM ledger_transfers") == 1)
            #expect(try await DonationRouteTests.count(payments, "SELECT count(*)::int FROM outbox WHERE type = 'household.settlements.paid.v1'") == 2,
                    "the original and the test's copy only")

            // Strangers: a household one is not in is the same 404 as one that does not exist; another's payment is not found;
            // the fundraising app does not pay household debts.
            let dan = try await http.signedIn(self.dan, as: Self.householdApp)
            let stranger = try await Self.pay(http, dan, household: flat, to: anaMember, cents: 1_000)
            let nowhere = try await Self.pay(http, dan, household: UUID().uuidString.lowercased(), to: anaMember, cents: 1_000)
            #expect(stranger.status == 404 && nowhere.status == 404 && stranger.json?["detail"] == nowhere.json?["detail"] && stranger.json?["detail"] != nil, "\(stranger.text) \(nowhere.text)")
            #expect(try await http.get("/v1/settle-ups/\(id)", headers: cara).status == 404)
            let fundraising = try await http.signedIn(self.ben, as: Donors.caller("ben"))
            #expect(try await Self.pay(http, fundraising, household: flat, to: anaMember, cents: 500).status == 403)
            #expect(try await http.get("/v1/settle-ups/\(id)", headers: fundraising).status == 403)
            // A payment is not a donation: Ben's donations list none, and a donation route does not find it.
            #expect(Donors.items(try await http.get("/v1/me/donations", headers: fundraising), "donations").isEmpty)
            #expect(try await http.get("/v1/donations/\(id)", headers: fundraising).status == 404)

            // Cara pays her 10 euro twice at once, under two keys, the household's id written two ways: one is charged, one refused.
            async let lower = Self.pay(http, cara, household: flat, to: anaMember, cents: 1_000)
            async let upper = Self.pay(http, cara, household: flat.uppercased(), to: anaMember.uppercased(), cents: 1_000)
            let both = try await [lower, upper]
            #expect(both.filter { $0.status == 201 && $0.json?["status"] == "succeeded" }.count == 1 && both.filter { $0.status == 400 }.count == 1,
                    "\(both.map(\.text))")
            #expect(try await DonationRouteTests.count(payments, "SELECT count(*)::int FROM ledger_transfers WHERE kind = 'settle_up'") == 2)

            // Ben disputes his payment with his bank: the money leaves what is held for Ana, and household opens his debt again.
            let store = DonationStore(database: payments, ledger: Ledger(database: payments))
            let disputed = try await payments.transaction {
                try await store.giveBack(UUID(uuidString: id)!, amount: 1_000, as: .dispute, transfer: Ledger.transfer(processor: "dispute:dp_ben"), on: $0)
            }
            #expect(disputed == 1_000)
            try await http.relayOutbox(of: "payments")
            let afterDispute = try await http.get("/v1/households/\(flat)/balances", headers: ana)
            #expect(BalanceReading.transfers(afterDispute).contains([.string(try #require(members[self.ben])), .string(anaMember), 1_000]), "\(afterDispute.text)")
            #expect(try await Self.settlements(http, flat, ana).contains { $0["reference"] == "Disputed with the card's bank" && $0["from"] == .string(anaMember) })
            #expect(try await DonationRouteTests.count(
                payments, "SELECT (-balance)::int FROM ledger_accounts WHERE kind = 'member' AND account_id = '\(self.ana.uuidString.lowercased())'") == 1_000,
                "Cara's payment is held for Ana; Ben's went back")
        }
    }
}
}

/// Reads a household's balances as the app does.
enum BalanceReading {
    /// The transfers of the first currency, as (from, to, minor units).
    static func transfers(_ reply: HTTPTestClient.Reply) -> [[JSONValue?]] {
        guard case .array(let currencies)? = reply.json?["currencies"], case .array(let transfers)? = currencies.first?["transfers"] else { return [] }
        return transfers.map { [$0["from"], $0["to"], $0["amount"]?["minorUnits"]] }
    }
}
