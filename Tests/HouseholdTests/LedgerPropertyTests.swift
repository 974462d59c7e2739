import Contracts
import Envelope
import Foundation
@testable import HouseholdService
import HouseholdContract
import Testing
import TestSupport

/// Balances over random bills and payments (seeded; the seed is in every failure): they add up to
/// zero in each currency, the simplified transfers settle every balance exactly with at most
/// members - 1 of them, and the pairwise debts say the same as the balances.
@Suite(.timeLimit(.minutes(1))) struct LedgerPropertyTests {
    /// A random household's money: bills split by every method among random members, and payments.
    static func randomLedgers(_ generator: inout SplitMix64, members: [UUID], entries: Int) throws -> [Currency: Ledger] {
        var ledgers: [Currency: Ledger] = [:]
        for _ in 0..<entries {
            let currency: Currency = Bool.random(using: &generator) ? .eur : .usd
            let payer = members.randomElement(using: &generator)!
            if Int.random(in: 0..<5, using: &generator) == 0 {
                let payee = members.filter { $0 != payer }.randomElement(using: &generator)!
                ledgers[currency, default: Ledger()].payment(from: payer, to: payee, amount: Int64.random(in: 1...50_000, using: &generator))
                continue
            }
            let amount = Money(minorUnits: Int64.random(in: 1...Household.Bounds.priceMinorUnits, using: &generator), currency: currency)
            let sharers = members.shuffled(using: &generator).prefix(Int.random(in: 1...members.count, using: &generator))
            let method = Household.SplitMethod.allCases.randomElement(using: &generator)!
            let values: [Int64?] = switch method {
            case .equal: sharers.map { _ in nil }
            case .shares: sharers.map { _ in Int64.random(in: 1...4, using: &generator) }
            case .percentage: try Money(minorUnits: 10_000, currency: currency).split(into: sharers.count).map(\.minorUnits)
            case .exact: try amount.allocated(byWeights: sharers.map { _ in Int64.random(in: 1...9, using: &generator) }).map(\.minorUnits)
            }
            let shares = try BillSplit.shares(of: amount, method, Array(zip(sharers, values)).map { (member: $0, value: $1) })
            #expect(shares.reduce(0) { $0 + $1.amount.minorUnits } == amount.minorUnits, "\(method) shares add up to the bill")
            ledgers[currency, default: Ledger()].bill(paidBy: payer, shares: shares.map { (member: $0.member, amount: $0.amount.minorUnits) })
        }
        return ledgers
    }

    @Test(arguments: 0..<6) func balancesAddUpAndSimplifiedTransfersSettleThem(round: Int) throws {
        let seed = UInt64(round) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(Date().timeIntervalSince1970)
        var generator = SplitMix64(seed: seed)
        let members = (0..<Int.random(in: 2...12, using: &generator)).map { _ in UUID() }
        let ledgers = try Self.randomLedgers(&generator, members: members, entries: Int.random(in: 1...300, using: &generator))
        for (currency, ledger) in ledgers {
            let context = "seed \(seed), \(currency), \(members.count) members"
            let balances = ledger.balances
            #expect(balances.values.reduce(0, +) == 0, "\(context): the balances add up to zero")

            let transfers = Ledger.simplified(balances)
            #expect(transfers.count <= max(0, members.count - 1), "\(context): \(transfers.count) transfers")
            #expect(transfers.allSatisfy { $0.amount > 0 && $0.from != $0.to }, "\(context)")
            var settled = ledger
            for transfer in transfers { settled.payment(from: transfer.from, to: transfer.to, amount: transfer.amount) }
            #expect(settled.balances.isEmpty, "\(context): the simplified transfers leave \(settled.balances)")

            var pairwise = ledger
            for transfer in ledger.pairwise { pairwise.payment(from: transfer.from, to: transfer.to, amount: transfer.amount) }
            #expect(pairwise.balances.isEmpty, "\(context): paying each pair's netted debt settles everything too")
            let pairs = Set(ledger.pairwise.map { [$0.from, $0.to].map(\.uuidString).sorted() })
            #expect(pairs.count == ledger.pairwise.count, "\(context): one transfer per pair at most")
        }
    }

    /// The remainder rule: ten euro three ways is 3.34, 3.33, 3.33; percentages and exact parts that
    /// do not add up are refused naming the field.
    @Test func splitsAddUpToTheBill() throws {
        let (ana, ben, cara) = (UUID(), UUID(), UUID())
        let ten = Money(minorUnits: 1_000, currency: .eur)
        #expect(try BillSplit.shares(of: ten, .equal, [(ana, nil), (ben, nil), (cara, nil)]).map(\.amount.minorUnits) == [334, 333, 333])
        #expect(try BillSplit.shares(of: ten, .shares, [(ana, 2), (ben, 1)]).map(\.amount.minorUnits) == [667, 333])
        #expect(try BillSplit.shares(of: ten, .percentage, [(ana, 5_000), (ben, 2_500), (cara, 2_500)]).map(\.amount.minorUnits) == [500, 250, 250])
        #expect(throws: OperationError.self) { try BillSplit.shares(of: ten, .percentage, [(ana, 5_000), (ben, 4_000)]) }
        #expect(throws: OperationError.self) { try BillSplit.shares(of: ten, .exact, [(ana, 500), (ben, 499)]) }
        #expect(throws: OperationError.self) { try BillSplit.shares(of: ten, .equal, [(ana, nil), (ana, nil)]) }
    }
}
