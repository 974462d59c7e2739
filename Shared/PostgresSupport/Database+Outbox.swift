import Envelope
import Foundation
import PostgresNIO

extension Database {
    /// The channel an outbox row is announced on at commit, waking the relay.
    static let outboxChannel = "outbox"

    /// Writes a request to another service into the outbox, in the caller's transaction: it is sent
    /// only if the transaction commits, and then until the receiver acknowledges it. Returns the
    /// envelope id every delivery attempt carries, on which the receiver deduplicates. A request
    /// made for an `account` (a user's mail, say) is dropped, if still undelivered, when that account
    /// is erased (`dropUndelivered(account:on:)`).
    @discardableResult
    public func enqueue<Op: BusOperation>(
        _ operation: Op.Type, _ request: Op.Request, on connection: PostgresConnection, idempotencyKey: String? = nil, account: UUID? = nil
    ) async throws -> String {
        let id = RandomID.uuid()
        let data = Data(try EnvelopeCodec().encode(request)), now = now()
        try await connection.query(
            """
            INSERT INTO outbox (id, service, type, data, idempotency_key, account_id, created_at, next_attempt_at)
            VALUES (\(id), \(Op.service), \(Op.type), \(data), \(idempotencyKey), \(account), \(now), \(now))
            """,
            logger: logger)
        try await notify(Self.outboxChannel, on: connection)
        return id
    }

    /// Drops the requests made for `account` that are not delivered yet, in the caller's (erasing)
    /// transaction; returns how many.
    @discardableResult
    public func dropUndelivered(account: UUID, on connection: PostgresConnection) async throws -> Int {
        try await connection.query("DELETE FROM outbox WHERE account_id = \(account) AND delivered_at IS NULL RETURNING 1", logger: logger).collect().count
    }
}
