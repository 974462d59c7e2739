import Envelope
import Foundation
import PostgresNIO

extension Database {
    /// The channel an outbox row is announced on at commit, waking the relay.
    static let outboxChannel = "outbox"

    /// Writes a request to another service into the outbox, in the caller's transaction: it is sent
    /// only if the transaction commits, and then until the receiver acknowledges it. Returns the
    /// envelope id every delivery attempt carries, on which the receiver deduplicates.
    @discardableResult
    public func enqueue<Op: BusOperation>(
        _ operation: Op.Type, _ request: Op.Request, on connection: PostgresConnection, idempotencyKey: String? = nil
    ) async throws -> String {
        let id = RandomID.uuid()
        let data = Data(try EnvelopeCodec().encode(request))
        try await connection.query(
            """
            INSERT INTO outbox (id, service, type, data, idempotency_key)
            VALUES (\(id), \(Op.service), \(Op.type), \(data), \(idempotencyKey))
            """,
            logger: logger)
        try await notify(Self.outboxChannel, on: connection)
        return id
    }
}
