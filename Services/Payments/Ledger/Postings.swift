import Foundation

/// The legs of each transfer the fundraising app posts. Pure: amounts in euro cents and karma points.
///
/// - A donation of `gross` with the processor's `fee`: the processor holds gross less fee for us,
///   the fee is an expense, the campaign is credited the gross.
/// - A refund or dispute of `amount`: the campaign gives it back and the processor pays it out (the
///   fee is not returned).
/// - A settle-up (a household debt paid in the app) of `gross` with the processor's `fee`: as a
///   donation, with the member paid's account credited instead of a campaign, and no karma; given
///   back (a refund or dispute), their account gives it back.
/// - Karma, as the seed defines it, per donation on its amount net of what was given back: +1 point
///   per whole euro to the donor, -1 to the campaign's owner, so karma balances too.
enum Postings {
    /// Karma points for a donation whose amount, net of refunds and disputes, is `cents`.
    static func karma(ofNet cents: Int64) -> Int64 { max(cents, 0) / 100 }

    static func donation(campaign: UUID, gross: Int64, fee: Int64, donorKarma: UUID, ownerKarma: UUID) -> [Ledger.Leg] {
        let points = karma(ofNet: gross)
        return [
            .init(account: .processor, amount: gross - fee), .init(account: .fees, amount: fee), .init(account: .campaign(campaign), amount: -gross),
            .init(account: .id(donorKarma), amount: points), .init(account: .id(ownerKarma), amount: -points),
        ]
    }

    static func settleUp(gross: Int64, fee: Int64, payee: UUID) -> [Ledger.Leg] {
        [.init(account: .processor, amount: gross - fee), .init(account: .fees, amount: fee), .init(account: .id(payee), amount: -gross)]
    }

    /// A refund or dispute of `amount` from a settle-up: the member paid's account gives it back.
    static func settleUpGiveBack(amount: Int64, payee: UUID) -> [Ledger.Leg] {
        [.init(account: .id(payee), amount: amount), .init(account: .processor, amount: -amount)]
    }

    /// A fee the processor kept, learnt after its donation was posted: it holds that much less for us.
    static func lateFee(_ fee: Int64) -> [Ledger.Leg] {
        [.init(account: .processor, amount: -fee), .init(account: .fees, amount: fee)]
    }

    /// A refund or dispute of `amount` from a donation of `gross` that had `returned` given back before.
    static func giveBack(campaign: UUID, gross: Int64, returned: Int64, amount: Int64, donorKarma: UUID, ownerKarma: UUID) -> [Ledger.Leg] {
        let lost = karma(ofNet: gross - returned) - karma(ofNet: gross - returned - amount)
        return [
            .init(account: .campaign(campaign), amount: amount), .init(account: .processor, amount: -amount),
            .init(account: .id(donorKarma), amount: -lost), .init(account: .id(ownerKarma), amount: lost),
        ]
    }
}
