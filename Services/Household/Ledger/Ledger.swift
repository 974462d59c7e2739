import Foundation

/// Who owes whom in one currency, from debts between pairs of members: a bill makes each member
/// who shares it owe the payer their share; a payment from A to B makes B owe A the amount back.
/// Amounts are minor units; pure arithmetic, no database.
struct Ledger: Sendable, Equatable {
    struct Pair: Hashable, Sendable {
        let debtor: UUID
        let creditor: UUID
    }

    /// `amount` minor units `from` pays `to`.
    struct Transfer: Equatable, Sendable {
        let from: UUID
        let to: UUID
        let amount: Int64
    }

    /// What each debtor owes each creditor, before netting the two ways of a pair.
    private(set) var owed: [Pair: Int64] = [:]

    init(owed: [Pair: Int64] = [:]) { self.owed = owed }

    mutating func owe(_ debtor: UUID, _ creditor: UUID, _ amount: Int64) {
        guard debtor != creditor, amount != 0 else { return }
        owed[Pair(debtor: debtor, creditor: creditor), default: 0] += amount
    }

    /// `payer` paid a bill of which each member owes their share (the payer's own share is theirs).
    mutating func bill(paidBy payer: UUID, shares: [(member: UUID, amount: Int64)]) {
        for share in shares { owe(share.member, payer, share.amount) }
    }

    mutating func payment(from payer: UUID, to payee: UUID, amount: Int64) {
        owe(payee, payer, amount)
    }

    /// Each member's net: above zero they are owed, below zero they owe; members at zero left out.
    /// The balances add up to zero.
    var balances: [UUID: Int64] {
        var net: [UUID: Int64] = [:]
        for (pair, amount) in owed {
            net[pair.creditor, default: 0] += amount
            net[pair.debtor, default: 0] -= amount
        }
        return net.filter { $0.value != 0 }
    }

    /// Each pair's debt netted both ways: at most one transfer per pair, the larger debtor first.
    var pairwise: [Transfer] {
        var netted: [Pair: Int64] = [:]
        for (pair, amount) in owed {
            let (low, high) = Self.ordered(pair.debtor, pair.creditor)
            netted[Pair(debtor: low, creditor: high), default: 0] += pair.debtor == low ? amount : -amount
        }
        return Self.sorted(netted.compactMap { pair, amount in
            amount == 0 ? nil : amount > 0
                ? Transfer(from: pair.debtor, to: pair.creditor, amount: amount) : Transfer(from: pair.creditor, to: pair.debtor, amount: -amount)
        })
    }

    /// Transfers that settle `balances` exactly, at most one fewer than the members with a balance:
    /// the largest debtor pays the largest creditor as much as one of them needs, and so on; each
    /// transfer settles at least one of the two (Splitwise's "simplify debts").
    static func simplified(_ balances: [UUID: Int64]) -> [Transfer] {
        func largestFirst(_ entries: [(UUID, Int64)]) -> [(member: UUID, amount: Int64)] {
            entries.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0.uuidString < $1.0.uuidString }.map { (member: $0.0, amount: $0.1) }
        }
        var debtors = largestFirst(balances.filter { $0.value < 0 }.map { ($0.key, -$0.value) })
        var creditors = largestFirst(balances.filter { $0.value > 0 }.map { ($0.key, $0.value) })
        var transfers: [Transfer] = []
        var (d, c) = (0, 0)
        while d < debtors.count, c < creditors.count {
            let amount = min(debtors[d].amount, creditors[c].amount)
            transfers.append(Transfer(from: debtors[d].member, to: creditors[c].member, amount: amount))
            debtors[d].amount -= amount
            creditors[c].amount -= amount
            if debtors[d].amount == 0 { d += 1 }
            if creditors[c].amount == 0 { c += 1 }
        }
        return transfers
    }

    private static func ordered(_ a: UUID, _ b: UUID) -> (UUID, UUID) {
        a.uuidString < b.uuidString ? (a, b) : (b, a)
    }

    private static func sorted(_ transfers: [Transfer]) -> [Transfer] {
        transfers.sorted { $0.amount != $1.amount ? $0.amount > $1.amount : ($0.from.uuidString, $0.to.uuidString) < ($1.from.uuidString, $1.to.uuidString) }
    }
}
