import Bus
import Contracts
import Crypto
import Envelope
import Foundation
import PaymentsContract
import PostgresNIO
import PostgresSupport
import ServiceSupport

/// What every request that opens a charge (a donation, a settle-up) checks before the processor is
/// asked: its client key, its amount, a repeat of an earlier request, and the limits against card
/// testing.
extension DonationHandlers {
    /// The Idempotency-Key that names a charge per caller (required: a repeat with it charges once).
    static func clientKey(_ context: RequestContext, for what: String) throws(OperationError) -> String {
        guard let key = context.attributes.idempotencyKey else {
            throw OperationError.invalid(field: "idempotencyKey", "\(what) needs an Idempotency-Key header: a repeat with it charges once")
        }
        return key
    }

    /// A charge's amount: euros, from the least the processor takes to the most one charge gives.
    static func checkAmount(_ amount: Money, _ validation: inout Validation) {
        validation.check(amount.currency == Payments.currency, "data.amount.currency", "must be EUR: payments in the app are in euros")
        validation.check(
            (Payments.Bounds.minimumDonation...Self.largest).contains(amount.minorUnits), "data.amount.minorUnits",
            "must be from \(Payments.Bounds.minimumDonation) (0.50 euro) to \(Self.largest)")
    }

    /// What a client key's first request was, to know a repeat from another request under the same key.
    static func fingerprint(_ request: String) -> String {
        SHA256.hash(data: Data(request.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The charge `caller` opened under client key `key` before (after any request with that key
    /// under way: a double tap's second waits for the first), or nil; 409 when that key named
    /// another request.
    func earlier(of caller: UUID, key: String, fingerprint: String, on connection: PostgresConnection) async throws -> DonationStore.Record? {
        try await database.lockForTransaction(caller.uuidString + "|" + key, on: connection)
        guard let earlier = try await donations.record(of: caller, clientKey: key, on: connection) else { return nil }
        guard earlier.fingerprint == fingerprint else {
            throw OperationError(.conflict, "this Idempotency-Key named another payment: use a new key for a new one")
        }
        return earlier
    }

    /// Counts a new charge against card testing: per account and per client network.
    func limit(_ caller: UUID, _ context: RequestContext, on connection: PostgresConnection) async throws {
        try await database.hit(Self.perAccount, [.account(caller.uuidString)], at: database.now(), on: connection)
        if let network = context.attributes.clientIP.flatMap(ClientNetwork.key) {
            try await database.hit(Self.perNetwork, [.network(network)], at: database.now(), on: connection)
        }
    }
}
