import Bus
import Contracts
import Crypto
import Envelope
import Foundation
import Logging
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// `payments.refunds.*`: a campaign's owner (or an admin) sees the donations it received and gives
/// them back, whole or in part, through the processor. A refund is recorded before the processor is
/// asked, under an idempotency key made from its id, and posted once it succeeded, whichever of the
/// reply, a webhook or the sweep sees it first. Anyone else is told the donation does not exist.
struct RefundHandlers: Sendable {
    let database: Database
    let refunds: RefundStore
    let processor: any PaymentProcessor
    let access: FundraisingAccess

    /// The role that may refund any campaign's donations.
    static let adminRole = "fundraising-admin"

    static let notFound = OperationError(
        .notFound, "data.donationId: no such donation to a campaign of yours",
        fields: [.init(field: "data.donationId", message: "is not a donation to a campaign of yours")])

    @Sendable
    func create(_ request: Payments.Refunds.Create.Request, _ context: RequestContext) async throws -> Payments.Refund {
        guard let key = context.attributes.idempotencyKey else {
            throw OperationError.invalid(field: "idempotencyKey", "a refund needs an Idempotency-Key header: a repeat with it refunds once")
        }
        if let amount = request.amount {
            var validation = Validation()
            validation.check(amount.currency == Payments.currency, "data.amount.currency", "must be EUR: the fundraising app is in euros")
            validation.check(amount.minorUnits > 0, "data.amount.minorUnits", "must be at least 1 (one cent)")
            try validation.finish()
        }
        let fingerprint = "\(request.donationId.lowercased())|\(request.amount?.minorUnits ?? 0)"
        let record = try await database.transaction { connection -> RefundStore.Record in
            let caller = try await access.caller(context, recording: true, on: connection)
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtextextended(\(caller.uuidString + "|refund|" + key), 0))::text", logger: database.logger)
            if let earlier = try await refunds.record(of: caller, clientKey: key, on: connection) {
                guard earlier.fingerprint == fingerprint else {
                    throw OperationError(.conflict, "this Idempotency-Key named another refund: use a new key for a new refund")
                }
                return earlier
            }
            guard let id = UUID(uuidString: request.donationId), let donation = try await refunds.donations.record(id, locking: true, on: connection),
                  donation.status == .succeeded, let campaign = donation.campaign, try await manages(campaign, caller, context, on: connection)
            else { throw Self.notFound }
            guard donation.intent != nil, donation.processor == processor.name else {
                throw OperationError(.conflict, "this donation was charged through \(donation.processor), which does not take refunds here")
            }
            let left = try await refunds.left(of: donation, on: connection)
            guard left > 0 else { throw OperationError(.conflict, "nothing is left of this donation to give back") }
            let amount = request.amount?.minorUnits ?? left
            guard amount <= left else {
                throw OperationError.invalid(field: "data.amount.minorUnits", "must be at most \(left): what is left of the donation to give back")
            }
            let refund = try await refunds.open(donation: id, amount: amount, requestedBy: caller, clientKey: key, fingerprint: fingerprint, on: connection)
            context.logger.notice("refund asked", metadata: ["refund": "\(refund)", "donation": "\(id)", "amount": "\(amount)"])
            guard let record = try await refunds.record(refund, on: connection) else { throw OperationError(.unavailable, "try again") }
            return record
        }
        return try await drive(record, logger: context.logger)
    }

    @Sendable
    func received(_ request: Payments.Refunds.Received.Request, _ context: RequestContext) async throws -> Payments.Refunds.Received.Response {
        let limit = try request.page.checked()
        return try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            guard let campaign = UUID(uuidString: request.campaignId), try await manages(campaign, caller, context, on: connection) else {
                throw CampaignHandlers.notFound
            }
            let page = try await refunds.received(campaign, before: request.after, limit: limit, on: connection)
            return .init(donations: page, nextAfter: page.count == limit ? page.last?.seq : nil)
        }
    }

    /// Whether `caller` may see and refund campaign `campaign`'s donations: its owner, or an admin.
    private func manages(_ campaign: UUID, _ caller: UUID, _ context: RequestContext, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query("SELECT owner_id FROM campaigns WHERE id = \(campaign)", logger: database.logger)
        for try await owner in rows.decode(UUID?.self) {
            return owner == caller || context.attributes.roles.contains(Self.adminRole)
        }
        return false
    }

    /// Asks the processor for refund `record` (the same refund again on a repeat: the idempotency
    /// key is made from its id) and settles its answer. A processor out of reach leaves it pending
    /// for a repeat or the sweep; a refusal (the charge was disputed, say) fails it.
    func drive(_ record: RefundStore.Record, logger: Logger) async throws -> Payments.Refund {
        guard record.status == .pending, let intent = record.intent else { return record.view }
        let id = CampaignStore.text(record.id)
        let answer: ProcessorRefund
        do {
            answer = try await processor.refund(
                intent, amount: record.amount, metadata: ["refund": id, "donation": CampaignStore.text(record.donation)],
                idempotencyKey: "melon-refund-\(id)")
        } catch {
            switch error {
            case .refused(409, _):
                // The same key in flight elsewhere (a repeat or the sweep): the refund may be under way, so it stays pending.
                logger.notice("the processor is busy with this refund's key; it stays pending", metadata: ["refund": "\(id)"])
            case .declined(let failure, _), .refused(_, let failure):
                logger.error("the processor refused a refund", metadata: ["refund": "\(id)", "code": "\(failure.code ?? "-")"])
                try await database.transaction { try await refunds.mark(record.id, .failed, on: $0) }
            case .unavailable(let why):
                logger.warning("the processor did not answer; the refund stays pending", metadata: ["refund": "\(id)", "why": "\(why)"])
            case .serverError(let status):
                // Asked again under the same key (a refund may have been made: a new key could give back twice).
                logger.warning("the processor failed; the refund stays pending", metadata: ["refund": "\(id)", "status": "\(status)"])
            }
            return try await database.transaction { try await refunds.record(record.id, on: $0) }?.view ?? record.view
        }
        return try await database.transaction { connection in
            try await refunds.settle(record.id, answer, on: connection)
            guard let settled = try await refunds.record(record.id, on: connection) else { throw Self.notFound }
            return settled.view
        }
    }

    /// Learns every refund the processor made of donation `donation` (paid by `intent`), ours or made
    /// at its dashboard, and settles each: a webhook's and the sweep's way to the truth.
    func sync(donation: UUID, intent: String) async throws {
        let answers = try await processor.refunds(of: intent)
        for answer in answers {
            try await database.transaction { connection in
                let id = try await refunds.match(answer, donation: donation, on: connection)
                try await refunds.settle(id, answer, on: connection)
            }
        }
    }

    /// Part of the job `donations.sweep`: refunds left pending for a minute are read back from the
    /// processor, or asked for again under the same key when it never had them; how many.
    func sweep(on connection: PostgresConnection) async throws -> Int {
        let stuck = try await refunds.pending(since: database.ago(.seconds(60)), limit: 5, on: connection)
        for record in stuck {
            do {
                if processor.keepsRecords, let intent = record.intent { try await sync(donation: record.donation, intent: intent) }
                guard let now = try await database.transaction({ try await refunds.record(record.id, on: $0) }), now.processorID == nil else { continue }
                _ = try await drive(now, logger: database.logger)
            } catch {
                database.logger.warning("a refund's sweep failed", metadata: ["refund": "\(record.id)"])
            }
        }
        return stuck.count
    }
}
