import Crypto
import Envelope
import Foundation
import Logging
import PostgresNIO

/// Where one stored reply is kept: the operation, whose keys (the caller's account, or "" for an
/// operation-wide space) and the key.
public struct IdempotencyRecord: Sendable, Hashable {
    public var operation: String
    public var caller: String
    public var key: String

    public init(operation: String, caller: String, key: String) {
        self.operation = operation
        self.caller = caller
        self.key = key
    }
}

extension Database {
    /// The reply stored under `record` by the same request (its `fingerprint`, a hash of the request
    /// without its secret fields); nil when there is none yet. The same key with another request is
    /// `conflict`.
    public func storedReply(_ record: IdempotencyRecord, fingerprint: [UInt8]) async throws -> [UInt8]? {
        try await transaction { try await storedReply(record, fingerprint: fingerprint, on: $0) }
    }

    /// The reply stored under `record` by the request with `fingerprint`, on `connection`; nil when
    /// there is none (or it is not committed yet); `conflict` when another request used the key.
    private func storedReply(_ record: IdempotencyRecord, fingerprint: [UInt8], on connection: PostgresConnection) async throws -> [UInt8]? {
        let rows = try await connection.query(
            """
            SELECT fingerprint, reply FROM idempotency_records
            WHERE operation = \(record.operation) AND caller = \(record.caller) AND key = \(record.key)
            """,
            logger: logger)
        for try await (stored, reply) in rows.decode((Data, Data?).self) {
            guard stored == Data(fingerprint) else { throw Self.otherRequest }
            return reply.map { [UInt8]($0) }
        }
        return nil
    }

    /// Runs a change at most once per `record`, inside the caller's transaction: the first request
    /// runs `body`, and its reply is stored with the request's fingerprint in the same transaction,
    /// so both commit or neither does. A repeat gets the stored reply; the same key with another
    /// request is `conflict`. Two identical requests racing wait on the record's row: the second sees
    /// the first's committed reply (or, if the first rolled back, runs itself).
    public func once(
        _ record: IdempotencyRecord, fingerprint: [UInt8], on connection: PostgresConnection, _ body: () async throws -> [UInt8]
    ) async throws -> [UInt8] {
        let key = try IdempotencyKey.checked(record.key, field: "idempotencykey")
        let hash = Data(fingerprint)
        let claimed = try await connection.query(
            """
            INSERT INTO idempotency_records (operation, caller, key, fingerprint) VALUES (\(record.operation), \(record.caller), \(key), \(hash))
            ON CONFLICT DO NOTHING RETURNING key
            """,
            logger: logger)
        for try await _ in claimed {
            let reply = try await body()
            try await connection.query(
                """
                UPDATE idempotency_records SET reply = \(Data(reply))
                WHERE operation = \(record.operation) AND caller = \(record.caller) AND key = \(key)
                """,
                logger: logger)
            return reply
        }
        if let reply = try await storedReply(record, fingerprint: fingerprint, on: connection) { return reply }
        throw OperationError(.conflict, "a request with this idempotency key is still being processed")
    }

    /// Deletes the records of `caller` (an erased account); returns how many.
    @discardableResult
    public func forgetIdempotency(caller: String, on connection: PostgresConnection) async throws -> Int {
        guard !caller.isEmpty else { return 0 }
        return try await connection.query("DELETE FROM idempotency_records WHERE caller = \(caller) RETURNING 1", logger: logger).collect().count
    }

    /// Deletes the records older than `retention`; returns how many.
    public func expireIdempotency(olderThan retention: Duration, on connection: PostgresConnection) async throws -> Int {
        let seconds = Double(retention.milliseconds) / 1000
        return try await connection.query(
            "DELETE FROM idempotency_records WHERE created_at < now() - make_interval(secs => \(seconds)) RETURNING 1", logger: logger
        ).collect().count
    }

    private static let otherRequest = OperationError(.conflict, "this idempotency key was used for a different request")
}
