import Bus
import Contracts
import Crypto
import Envelope
import Foundation
import Logging
import PaymentsContract
import PostgresNIO
import PostgresSupport
import ServiceSupport

/// `payments.donations.*`: giving to a campaign through the payment processor. The donation is
/// recorded first, its PaymentIntent created with an idempotency key made from the donation's id
/// and stored before it is confirmed, and the outcome settled under the donation's lock: posted to
/// the ledger once, whichever of the confirm reply, a later read or the sweep sees it first.
struct DonationHandlers: Sendable {
    let database: Database
    let donations: DonationStore
    let campaigns: CampaignStore
    let processor: any PaymentProcessor
    let access: FundraisingAccess
    /// Receipts by email, for the donations that asked for one.
    let receipts: DonationReceipts
    /// The crash test's: exit the moment the processor charged, before the charge is recorded.
    var stopAfterCharge = false

    /// Against card testing: attempts per account and per client network.
    static let perAccount = RateLimit("donations.account", count: 20, per: .seconds(3_600), message: "too many donations this hour; try again later")
    static let perNetwork = RateLimit(
        "donations.network", count: 40, per: .seconds(3_600), message: "too many donations from this network this hour; try again later")

    static let notFound = OperationError(
        .notFound, "data.donationId: you made no such donation", fields: [.init(field: "data.donationId", message: "is not one of your donations")])
    /// The most one donation gives, in cents.
    static let largest: Int64 = 1_000_000

    @Sendable
    func create(_ request: Payments.Donations.Create.Request, _ context: RequestContext) async throws -> Payments.Donation {
        try await give(request, receiptEmail: nil, fromAnyApp: false, context)
    }

    /// A gift to the Melon project's own campaign, from any app, with a receipt by email when asked.
    @Sendable
    func donateToProject(_ request: Payments.Project.Donate.Request, _ context: RequestContext) async throws -> Payments.Donation {
        let gift = Payments.Donations.Create.Request(
            campaignId: Payments.projectCampaignId, amount: request.amount, paymentMethod: request.paymentMethod, anonymous: request.anonymous)
        return try await give(gift, receiptEmail: request.receiptEmail, fromAnyApp: true, context)
    }

    private func give(_ request: Payments.Donations.Create.Request, receiptEmail: String?, fromAnyApp: Bool, _ context: RequestContext) async throws
        -> Payments.Donation
    {
        let key = try Self.clientKey(context, for: "a donation")
        var validation = Validation()
        Self.checkAmount(request.amount, &validation)
        if let problem = receiptEmail.flatMap(EmailAddress.problem) { validation.check(false, "data.receiptEmail", problem) }
        try validation.finish()
        let anonymous = request.anonymous ?? false
        let receipt = receiptEmail.map(EmailAddress.normalized)
        let fingerprint = Self.fingerprint(
            "\(request.campaignId)|\(request.amount.minorUnits)|\(request.paymentMethod)|\(anonymous)" + (receipt.map { "|\($0)" } ?? ""))
        let record = try await database.transaction { connection -> DonationStore.Record in
            // Known by username in the fundraising app only: a gift to the project from another app makes no profile there.
            let recording = context.attributes.app == ClientApp.fundraising.rawValue
            let caller = try await access.caller(context, recording: recording, fromAnyApp: fromAnyApp, on: connection)
            if let earlier = try await earlier(of: caller, key: key, fingerprint: fingerprint, on: connection) { return earlier }
            guard let id = UUID(uuidString: request.campaignId), let campaign = try await campaigns.campaign(id, viewer: caller, on: connection) else {
                throw CampaignHandlers.notFound
            }
            guard campaign.view.state == .open else { throw OperationError(.conflict, "the campaign is closed: it takes no more donations") }
            guard campaign.owner != caller else { throw OperationError.invalid(field: "data.campaignId", "is your own campaign") }
            try await limit(caller, context, on: connection)
            let charge = DonationStore.Charge(processor: processor.name, paymentMethod: request.paymentMethod, clientKey: key, fingerprint: fingerprint)
            let donation = try await donations.open(
                campaign: id, donor: caller, anonymous: anonymous, gross: request.amount.minorUnits, charge: charge, receiptEmail: receipt, on: connection)
            guard let record = try await donations.record(donation, on: connection) else { throw OperationError(.unavailable, "try again") }
            return record
        }
        return try await drive(record, logger: context.logger).donation
    }

    @Sendable
    func get(_ request: Payments.DonationReference, _ context: RequestContext) async throws -> Payments.Donation {
        try await current(try await owned(request.donationId, context), logger: context.logger).donation
    }

    @Sendable
    func finish(_ request: Payments.DonationReference, _ context: RequestContext) async throws -> Payments.Donation {
        try await drive(try await owned(request.donationId, context), logger: context.logger).donation
    }

    /// Where charge `record` stands: asked of the processor again while it has it; one waiting for
    /// its payer's 3-D Secure waits for `finished`.
    func current(_ record: DonationStore.Record, logger: Logger) async throws -> Driven {
        record.status == .processing ? try await drive(record, logger: logger) : Driven(record: record, nextAction: nil)
    }

    /// A charge as it stands after it was driven, and what the app does next (3-D Secure).
    struct Driven: Sendable {
        let record: DonationStore.Record
        let nextAction: Payments.NextAction?

        var donation: Payments.Donation { record.view(nextAction: nextAction) }
        var settleUp: Payments.SettleUp { record.settleUpView(nextAction: nextAction) }
    }

    @Sendable
    func mine(_ request: PageRequest, _ context: RequestContext) async throws -> Payments.Donations.Mine.Response {
        let limit = try request.checked()
        return try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            let page = try await donations.mine(caller, before: request.after, limit: limit, on: connection)
            return .init(donations: page.map { $0.view() }, nextAfter: page.count == limit ? page.last?.seq : nil)
        }
    }

    /// How long one caller holds a donation it takes to the processor: two requests at most (create
    /// or read back, then confirm) and a margin. A holder that died lets go when it ends, so a
    /// repeat, a read or the sweep takes the donation on soon after a crash.
    var lease: Duration { processor.patience * 2 + .seconds(5) }

    /// Takes donation `record` as far as the processor will, holding it so that one request, read
    /// or sweep at a time does (another answers it as it stands): creates its PaymentIntent (the same
    /// one again on a repeat) and stores it, confirms it, or reads it back; then settles what it
    /// says. A processor out of reach, or one that refuses to say about an intent already made,
    /// leaves the donation processing: a repeat, a read or the sweep takes it on from there (after a
    /// 5xx, under new keys: the processor answers the old ones with the same 5xx).
    func drive(_ record: DonationStore.Record, logger: Logger) async throws -> Driven {
        guard record.status == .processing || record.status == .requiresAction,
              let held = try await database.transaction({ try await donations.hold(record.id, for: lease, on: $0) })
        else { return Driven(record: record, nextAction: nil) }
        let intent: PaymentIntent
        do {
            intent = try await charge(held)
        } catch let error as ProcessorError {
            var renew = false
            switch error {
            case .declined(let failure, _):
                logger.notice("donation declined", metadata: Self.metadata(held, processor.name, failure))
                return try await settle(held.id, failed: Self.reason(failure))
            case .refused(let status, let failure):
                logger.error(
                    "the processor refused a donation's request", metadata: Self.metadata(held, processor.name, failure).merging(["status": "\(status)"]) { $1 })
                // Before an intent exists nothing was charged; after, only the intent's own status says how it ended.
                if held.intent == nil && status != 409 { return try await settle(held.id, failed: .tryAgain) }
            case .unavailable(let why):
                logger.warning("the processor did not answer; the donation stays processing", metadata: ["donation": "\(held.id)", "why": "\(why)"])
            case .serverError(let status):
                // Stripe answers the same 5xx to every repeat under the keys it had: the next try goes under new ones.
                logger.warning(
                    "the processor failed; the donation stays processing, to be tried under new keys", metadata: ["donation": "\(held.id)", "status": "\(status)"])
                renew = true
            }
            try await database.transaction { connection in
                if renew { try await donations.renewKeys(held.id, on: connection) }
                try await donations.release(held.id, on: connection)
            }
            return Driven(record: held, nextAction: nil)
        }
        if stopAfterCharge && intent.status == .succeeded {
            logger.critical("stopping between the charge and its commit, as payments.test.stop.after.charge asks", metadata: ["donation": "\(held.id)"])
            exit(86)
        }
        return try await settle(held.id, intent, logger: logger)
    }

    /// The donation's intent at the processor: made and stored, confirmed, or read back.
    private func charge(_ record: DonationStore.Record) async throws -> PaymentIntent {
        let donation = CampaignStore.text(record.id)
        var intent: PaymentIntent
        if let id = record.intent {
            intent = try await processor.retrieve(id)
        } else {
            // An erased donor's unfinished donation has no payment method left to charge.
            guard let method = record.paymentMethod else {
                throw ProcessorError.refused(status: 400, ProcessorFailure(code: "no_payment_method", declineCode: nil, message: "the donor's account is gone"))
            }
            let new = NewIntent(amount: record.gross, currency: Payments.currency.code.lowercased(), paymentMethod: method, metadata: ["donation": donation])
            intent = try await processor.create(new, idempotencyKey: record.createKey)
            try await database.transaction { try await donations.setIntent(record.id, intent.id, on: $0) }
        }
        if intent.status == .requiresConfirmation {
            intent = try await processor.confirm(intent.id, idempotencyKey: record.confirmKey)
        }
        return intent
    }

    /// The job `donations.sweep`: donations left processing for 30 s (the processor did not answer,
    /// or the process stopped between the processor's answer and our commit) are taken on from their
    /// stored PaymentIntent, or created again under the same idempotency key. One instance sweeps at a
    /// time (the job's lock, which holds no row: each donation is held and settled in transactions of
    /// its own, while the job's waits; five a round, so it stays short); how many it took on.
    func sweep(on connection: PostgresConnection) async throws -> Int {
        let stuck = try await donations.unsettled(since: database.ago(.seconds(30)), limit: 5, on: connection)
        for record in stuck {
            do { _ = try await drive(record, logger: database.logger) } catch { database.logger.warning("a donation's sweep failed", metadata: ["donation": "\(record.id)"]) }
        }
        return stuck.count
    }

    /// Records what `intent` says of donation `id`, under its lock: succeeded is posted once.
    func settle(_ id: UUID, _ intent: PaymentIntent, logger: Logger) async throws -> Driven {
        try await database.transaction { connection in
            guard let record = try await donations.record(id, locking: true, on: connection) else { throw Self.notFound }
            switch intent.status {
            case .succeeded? where !Self.matches(intent, record):
                // Never posted on the processor's word for another amount or donation: an operator looks (reconciliation counts it).
                logger.error("the processor's intent does not match its donation; not posted", metadata: ["donation": "\(id)", "intent": "\(intent.id)"])
                try await donations.release(id, on: connection)
            case .succeeded?:
                if try await donations.succeed(id, fee: intent.fee, on: connection) {
                    try await receipts.send(for: id, on: connection)
                    if record.household != nil {
                        try await SettleUpHandlers.tellHousehold(record, database: database, on: connection)
                    } else {
                        try await DonationPushes(database: database).succeeded(id, on: connection)
                    }
                    logger.notice("charge succeeded", metadata: ["donation": "\(id)", "processor": "\(processor.name)", "intent": "\(intent.id)"])
                }
            case .requiresAction?:
                try await donations.mark(id, .requiresAction, on: connection)
            case .requiresPaymentMethod?, .canceled?:
                if let failure = intent.failure { logger.notice("donation declined", metadata: Self.metadata(record, processor.name, failure)) }
                try await donations.mark(id, .failed, reason: intent.failure.map(Self.reason) ?? .tryAgain, on: connection)
            case .processing?, .requiresConfirmation?, .requiresCapture?, nil:
                try await donations.mark(id, .processing, on: connection)
            }
            guard let settled = try await donations.record(id, on: connection) else { throw Self.notFound }
            let action = intent.nextAction.map { Payments.NextAction(type: $0.type, clientSecret: intent.clientSecret, redirectUrl: $0.redirectURL) }
            return Driven(record: settled, nextAction: action)
        }
    }

    private func settle(_ id: UUID, failed reason: Payments.DeclineReason) async throws -> Driven {
        try await database.transaction { connection in
            try await donations.mark(id, .failed, reason: reason, on: connection)
            guard let record = try await donations.record(id, on: connection) else { throw Self.notFound }
            return Driven(record: record, nextAction: nil)
        }
    }

    /// The caller's donation `reference`, or `notFound`.
    private func owned(_ reference: String, _ context: RequestContext) async throws -> DonationStore.Record {
        try await database.transaction { connection in
            // From any app: the project's donations are given from every app.
            let caller = try await access.caller(context, fromAnyApp: true, on: connection)
            guard let id = UUID(uuidString: reference), let record = try await donations.record(id, on: connection), record.donor == caller,
                  record.campaign != nil
            else {
                throw Self.notFound
            }
            return record
        }
    }

    /// Whether `intent` charges what donation `record` gave, in euros, for that donation (when it says which).
    static func matches(_ intent: PaymentIntent, _ record: DonationStore.Record) -> Bool {
        intent.amount == record.gross && intent.currency.uppercased() == Payments.currency.code
            && (intent.metadata["donation"].map { $0 == CampaignStore.text(record.id) } ?? true)
    }

    /// The reason a donor is shown for the processor's failure.
    static func reason(_ failure: ProcessorFailure) -> Payments.DeclineReason {
        switch (failure.code, failure.declineCode) {
        case (_, "insufficient_funds"?): .insufficientFunds
        case ("expired_card"?, _), (_, "expired_card"?): .expired
        case ("processing_error"?, _), (_, "try_again_later"?), ("rate_limit"?, _): .tryAgain
        default: .cardDeclined
        }
    }

    /// What the log says of a failure: the processor's codes, never the card or the client secret.
    static func metadata(_ record: DonationStore.Record, _ processor: String, _ failure: ProcessorFailure) -> Logger.Metadata {
        ["donation": "\(record.id)", "processor": "\(processor)", "code": "\(failure.code ?? "-")", "decline_code": "\(failure.declineCode ?? "-")"]
    }
}
