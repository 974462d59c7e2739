import Contracts
import Envelope
import Foundation
import PaymentsContract
@testable import PaymentsService
import PostgresNIO
import PostgresSupport
import ServiceKit
import Testing
import TestSupport

extension PaymentsStackTests {
/// The ledger over random sequences of donations, refunds and disputes (seeded; the seed is in every
/// failure), against a model of what happened: every balance is the sum of its entries and debits
/// equal credits in each unit; karma is its rule applied to the donations; campaign figures are the
/// ledger's sums. And PostgreSQL itself refuses to rewrite history or post an unbalanced transfer.
@Suite(.timeLimit(.minutes(3))) struct LedgerPropertyTests {
    /// What happened to one donation, as the model keeps it.
    struct Gift {
        let id: UUID
        let campaign: Int
        let donor: UUID
        let gross: Int64
        let fee: Int64
        var returned: Int64 = 0
    }

    @Test(arguments: 0..<3) func randomDonationsRefundsAndDisputesKeepTheLedgerTrue(round: Int) async throws {
        let seed = UInt64(round) &* 0x9E37_79B9_7F4A_7C15 &+ 17
        try await InProcessStack.with([.payments]) { http in
            var generator = SplitMix64(seed: seed)
            let database = try #require(http.databases["payments"])
            let ledger = Ledger(database: database), donations = DonationStore(database: database, ledger: ledger)
            let owners = [UUID(), UUID()], people = owners + (0..<4).map { _ in UUID() }
            var campaigns: [(id: String, owner: UUID)] = []
            for index in 0..<3 {
                let owner = owners[index % 2]
                let headers = try await http.signedIn(owner, as: Donors.caller("owner\(index % 2)"))
                campaigns.append((try await Donors.start(http, headers, title: "Campaign number \(index)", goal: 1_000_000), owner))
            }
            var gifts: [Gift] = []
            for _ in 0..<60 {
                let roll = Int.random(in: 0..<10, using: &generator)
                if roll < 5 || gifts.isEmpty {
                    let campaign = Int.random(in: 0..<campaigns.count, using: &generator)
                    let donor = people.filter { $0 != campaigns[campaign].owner }.randomElement(using: &generator)!
                    let gross = Int64.random(in: 50...200_000, using: &generator), fee = Int64.random(in: 0...(gross / 20), using: &generator)
                    let id = try await Donors.donate(database, to: campaigns[campaign].id, from: donor, gross: gross, fee: fee)
                    gifts.append(Gift(id: id, campaign: campaign, donor: donor, gross: gross, fee: fee))
                    // Learning of the success again (a webhook after the confirm) posts nothing.
                    #expect(try await database.transaction { try await donations.succeed(id, fee: fee, on: $0) } == false, "seed \(seed)")
                } else {
                    let index = Int.random(in: 0..<gifts.count, using: &generator)
                    let left = gifts[index].gross - gifts[index].returned
                    let dispute = roll == 9
                    // A dispute may claim more than is left (after a refund): what is left is posted. A refund takes some of
                    // what is left, or one cent when nothing is.
                    let amount = dispute ? left + Int64.random(in: 0...500, using: &generator) : left == 0 ? 1 : Int64.random(in: 1...left, using: &generator)
                    let transfer = UUID()
                    let posted = try await database.transaction {
                        try await donations.giveBack(gifts[index].id, amount: amount, as: dispute ? .dispute : .refund, transfer: transfer, on: $0)
                    }
                    if left > 0 {
                        #expect(posted == min(amount, left), "seed \(seed)")
                        gifts[index].returned += min(amount, left)
                        let again = try await database.transaction { try await donations.giveBack(gifts[index].id, amount: 1, as: .refund, transfer: transfer, on: $0) }
                        #expect(again == 0, "the same refund twice posts once; seed \(seed)")
                    } else {
                        #expect(posted == nil, "never more than was given; seed \(seed)")
                    }
                }
            }

            let proof = try await database.transaction { try await ledger.verify(on: $0) }
            #expect(proof.holds, "\(proof); seed \(seed)")
            for person in people {
                let given = gifts.filter { $0.donor == person }.reduce(Int64(0)) { $0 + Postings.karma(ofNet: $1.gross - $1.returned) }
                let received = gifts.filter { campaigns[$0.campaign].owner == person }.reduce(Int64(0)) { $0 + Postings.karma(ofNet: $1.gross - $1.returned) }
                let karma = try await database.transaction { try await ledger.karma(of: person, on: $0) }
                #expect(karma == given - received, "karma of \(person); seed \(seed)")
            }
            let reader = try await http.signedIn(UUID(), as: Donors.caller("reader"))
            for (index, campaign) in campaigns.enumerated() {
                let mine = gifts.filter { $0.campaign == index }
                let statistics = try #require(try await http.get("/v1/campaigns/\(campaign.id)", headers: reader).json?["statistics"])
                let gross = mine.reduce(Int64(0)) { $0 + $1.gross }, returned = mine.reduce(Int64(0)) { $0 + $1.returned }
                let fees = mine.reduce(Int64(0)) { $0 + $1.fee }
                #expect(statistics["gross"]?["minorUnits"] == .number(Double(gross)) && statistics["refunded"]?["minorUnits"] == .number(Double(returned)),
                        "\(statistics); seed \(seed)")
                #expect(statistics["net"]?["minorUnits"] == .number(Double(gross - returned - fees)) && statistics["donations"] == .number(Double(mine.count)),
                        "\(statistics); seed \(seed)")
                #expect(statistics["donors"] == .number(Double(Set(mine.map(\.donor)).count)), "seed \(seed)")
            }
        }
    }

    @Test func concurrentPostingsSharingTheirAccountsNeitherDeadlockNorMiscount() async throws {
        try await InProcessStack.with([.payments]) { http in
            let database = try #require(http.databases["payments"])
            let probe = LedgerProbe(database: database)
            let campaigns = try await probe.campaigns(2), donors = try await probe.donors(3)
            // Eight callers at once over the same processor, fees, campaign and karma accounts, one to three transfers at a time.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<8 {
                    group.addTask {
                        for index in 0..<15 {
                            let campaign = campaigns[(lane + index) % 2]
                            try await probe.post(batch: (0...(index % 3)).map { _ in
                                (gross: 1_000, donorKarma: donors[(lane + index) % 3], campaign: campaign.id, ownerKarma: campaign.ownerKarma)
                            })
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await probe.verify())
            #expect(try await DonationRouteTests.count(database, "SELECT count(*)::int FROM ledger_transfers") == 8 * 5 * (1 + 2 + 3))
            #expect(try await DonationRouteTests.count(database, "SELECT sum(balance)::int FROM ledger_accounts WHERE kind = 'karma' AND balance > 0") == 240 * 10,
                    "ten points a transfer to the donors")
        }
    }

    @Test func theDatabaseRefusesToRewriteHistoryOrPostAnUnbalancedTransfer() async throws {
        try await InProcessStack.with([.payments]) { http in
            let database = try #require(http.databases["payments"])
            let fiona = try await http.signedIn(UUID(), as: Donors.caller("fiona"))
            let campaign = try await Donors.start(http, fiona, title: "Kit for the team")
            _ = try await Donors.donate(database, to: campaign, from: UUID(), gross: 2_000, fee: 50)
            let ledger = Ledger(database: database)
            for statement in ["UPDATE ledger_entries SET amount = amount * 2", "DELETE FROM ledger_entries", "DELETE FROM ledger_transfers",
                              "UPDATE ledger_transfers SET kind = 'refund'", "TRUNCATE ledger_entries"] {
                await #expect(throws: PSQLError.self, "\(statement)") {
                    try await database.transaction { try await $0.query(PostgresQuery(unsafeSQL: statement), logger: database.logger) }
                }
            }
            // Half a transfer: the campaign credited with nothing debited. Refused by the statement that records it.
            let campaignID = UUID(uuidString: campaign)!
            await #expect(throws: (any Error).self) {
                try await database.transaction { connection in
                    try await ledger.post(
                        UUID(), .donation, campaign: campaignID, donation: UUID(), legs: [.init(account: .campaign(campaignID), amount: -500)], on: connection)
                }
            }
            // A balanced transfer added to one already recorded: refused too (a transfer is recorded by one statement).
            let transfer = try await database.transaction { connection in
                try await connection.query("SELECT id FROM ledger_transfers", logger: database.logger).decode(UUID.self).first { _ in true }
            }
            await #expect(throws: (any Error).self) {
                try await database.transaction { connection in
                    let (processor, fees) = (try await ledger.id(of: .processor, on: connection), try await ledger.id(of: .fees, on: connection))
                    try await connection.query(
                        "INSERT INTO ledger_entries (transfer_id, account_id, amount) VALUES (\(transfer), \(processor), -7), (\(transfer), \(fees), 7)",
                        logger: database.logger)
                }
            }
            let proof = try await database.transaction { try await ledger.verify(on: $0) }
            let entries = try await database.transaction { connection in
                try await connection.query("SELECT count(*)::int FROM ledger_entries", logger: database.logger).decode(Int.self).first { _ in true } ?? -1
            }
            #expect(proof.holds && entries == 5, "the donation's five legs, nothing else: \(proof)")
        }
    }
}
}
