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
        // One statement needs no transaction of its own (BEGIN and COMMIT would be two more round
        // trips on every idempotent write): it sees what is committed, as a transaction would.
        try await client.withConnection { try await storedReply(record, fingerprint: fingerprint, on: $0) }
    }

    /// The reply stored under `record` by the request with `fingerprint`, on `connection`; nil when
    /// there is none (or it is not committed yet); `conflict` when another request used the key.
    private func storedReply(_ record: IdempotencyRecord, fingerprint: [UInt8], on connection: PostgresConnection) async throws -> [UInt8]? {
        let rows = try await connection.execute(
            FindReply(operation: record.operation, caller: record.caller, key: record.key), logger: logger)
        for try await row in rows {
            let (stored, reply) = try row.decode((Data, Data?).self)
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
    /// `body` must let a failed statement's error out: the transaction is aborted then, and storing
    /// the reply would fail too (and PostgresNIO keeps a statement that could not be prepared on a
    /// connection as failed on that connection).
    public func once(
        _ record: IdempotencyRecord, fingerprint: [UInt8], on connection: PostgresConnection, _ body: () async throws -> [UInt8]
    ) async throws -> [UInt8] {
        let key = try IdempotencyKey.checked(record.key, field: "idempotencykey")
        let hash = Data(fingerprint)
        let claimed = try await connection.execute(
            ClaimRecord(operation: record.operation, caller: record.caller, key: key, fingerprint: hash, at: now()), logger: logger)
        for try await _ in claimed {
            let reply = try await body()
            try await connection.execute(
                StoreReply(operation: record.operation, caller: record.caller, key: key, reply: Data(reply)), logger: logger)
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
        try await connection.query(
            "DELETE FROM idempotency_records WHERE created_at < \(ago(retention)) RETURNING 1", logger: logger
        ).collect().count
    }

    private static let otherRequest = OperationError(.conflict, "this idempotency key was used for a different request")
}

// Prepared once per connection: every idempotent write runs these, and a prepared statement skips the
// parse and the plan (a quarter of PostgreSQL's CPU for a small write).

/// Claims the record for this request; a row back means the claim is new.
private struct ClaimRecord: PreparedRows {
    // A name of our own: the default, the type's reflected name, can pass PostgreSQL's 63-byte limit,
    // and two names cut to the same prefix would be one statement.
    static let name = "melon_idempotency_claim"
    static let sql = """
        INSERT INTO idempotency_records (operation, caller, key, fingerprint, created_at) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT DO NOTHING RETURNING key
        """
    var operation: String, caller: String, key: String, fingerprint: Data, at: Date

    func makeBindings() throws -> PostgresBindings { try .values(operation, caller, key, fingerprint, at) }
}

/// Stores the reply of the claimed record.
private struct StoreReply: PostgresPreparedStatement {
    static let name = "melon_idempotency_store_reply"
    static let sql = "UPDATE idempotency_records SET reply = $4 WHERE operation = $1 AND caller = $2 AND key = $3"
    typealias Row = ()
    var operation: String, caller: String, key: String, reply: Data

    func makeBindings() throws -> PostgresBindings { try .values(operation, caller, key, reply) }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// The fingerprint and the reply stored under a record; asked before every idempotent write.
private struct FindReply: PreparedRows {
    static let name = "melon_idempotency_find_reply"
    static let sql = "SELECT fingerprint, reply FROM idempotency_records WHERE operation = $1 AND caller = $2 AND key = $3"
    var operation: String, caller: String, key: String

    func makeBindings() throws -> PostgresBindings { try .values(operation, caller, key) }
}
