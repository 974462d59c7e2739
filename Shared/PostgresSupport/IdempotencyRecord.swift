import Crypto
import Envelope
import Foundation
import Logging
import PostgresNIO

/// Where one stored reply is kept: the operation, whose keys (the caller's account, or "" for an
/// operation-wide space) and the key.
///
/// A stored reply copies what the change made (a message's text, a name, tax answers), so the
/// database never holds it, nor the key, in the clear: the row is found by a hash of the three
/// (`lookup`), and the reply is sealed (AES-256-GCM) and the request's fingerprint keyed (HMAC-SHA256)
/// with keys derived from the idempotency key (HKDF-SHA256), which only the caller holds. A repeat
/// brings the key and opens the reply; a copy of the table opens nothing and tells no text by its
/// fingerprint, and what a change later deletes (a message deleted for both) is not readable from
/// its stored reply meanwhile.
public struct IdempotencyRecord: Sendable, Hashable {
    public let operation: String
    public let caller: String
    public let key: String
    /// What the row is found by: hex SHA-256 of operation, caller and key, a line each (the kit's
    /// migration computes the same in SQL for rows from before the sealing). Made once: a request
    /// looks its record up, claims it, stores and seals its reply under it.
    let lookup: String

    public init(operation: String, caller: String, key: String) {
        self.operation = operation
        self.caller = caller
        self.key = key
        lookup = SHA256.hash(data: Data("\(operation)\n\(caller)\n\(key)".utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A key for `purpose` derived from the idempotency key, bound to the operation and caller.
    private func derived(_ purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(key.utf8)), salt: Data("melon idempotency".utf8),
            info: Data("\(purpose)\n\(operation)\n\(caller)".utf8), outputByteCount: 32)
    }

    /// The fingerprint as stored: keyed, so a guess at a request cannot be checked without the key.
    func keyed(_ fingerprint: [UInt8]) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: fingerprint, using: derived("fingerprint")))
    }

    func seal(_ reply: [UInt8]) throws -> Data { try Seal.seal(Data(reply), key: derived("reply"), context: lookup) }

    func open(_ sealed: Data) throws -> [UInt8] { [UInt8](try Seal.open(sealed, key: derived("reply"), context: lookup)) }
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
        let rows = try await connection.execute(FindReply(operation: record.operation, caller: record.caller, lookup: record.lookup), logger: logger)
        for try await row in rows {
            let (stored, reply, sealed) = try row.decode((Data, Data?, Bool).self)
            // A row from before the sealing kept the plain fingerprint and reply (gone within a day).
            guard stored == (sealed ? record.keyed(fingerprint) : Data(fingerprint)) else { throw Self.otherRequest }
            guard let reply else { return nil }
            return sealed ? try record.open(reply) : [UInt8](reply)
        }
        return nil
    }

    /// Runs a change at most once per `record`, inside the caller's transaction: the first request
    /// runs `body`, and its reply is stored sealed with the request's keyed fingerprint in the same
    /// transaction, so both commit or neither does. A repeat gets the stored reply; the same key with
    /// another request is `conflict`. Two identical requests racing wait on the record's row: the
    /// second sees the first's committed reply (or, if the first rolled back, runs itself).
    /// `body` must let a failed statement's error out: the transaction is aborted then, and storing
    /// the reply would fail too (and PostgresNIO keeps a statement that could not be prepared on a
    /// connection as failed on that connection).
    public func once(
        _ record: IdempotencyRecord, fingerprint: [UInt8], on connection: PostgresConnection, _ body: () async throws -> [UInt8]
    ) async throws -> [UInt8] {
        _ = try IdempotencyKey.checked(record.key, field: "idempotencykey")
        let claimed = try await connection.execute(
            ClaimRecord(operation: record.operation, caller: record.caller, lookup: record.lookup, fingerprint: record.keyed(fingerprint), at: now()),
            logger: logger)
        for try await _ in claimed {
            let reply = try await body()
            try await connection.execute(
                StoreReply(operation: record.operation, caller: record.caller, lookup: record.lookup, reply: try record.seal(reply)), logger: logger)
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
        INSERT INTO idempotency_records (operation, caller, key, fingerprint, created_at, sealed) VALUES ($1, $2, $3, $4, $5, true)
        ON CONFLICT DO NOTHING RETURNING key
        """
    var operation: String, caller: String, lookup: String, fingerprint: Data, at: Date

    func makeBindings() throws -> PostgresBindings { try .values(operation, caller, lookup, fingerprint, at) }
}

/// Stores the reply of the claimed record.
private struct StoreReply: PostgresPreparedStatement {
    static let name = "melon_idempotency_store_reply"
    static let sql = "UPDATE idempotency_records SET reply = $4 WHERE operation = $1 AND caller = $2 AND key = $3"
    typealias Row = ()
    var operation: String, caller: String, lookup: String, reply: Data

    func makeBindings() throws -> PostgresBindings { try .values(operation, caller, lookup, reply) }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// The fingerprint and the reply stored under a record; asked before every idempotent write.
private struct FindReply: PreparedRows {
    static let name = "melon_idempotency_find_reply"
    static let sql = "SELECT fingerprint, reply, sealed FROM idempotency_records WHERE operation = $1 AND caller = $2 AND key = $3"
    var operation: String, caller: String, lookup: String

    func makeBindings() throws -> PostgresBindings { try .values(operation, caller, lookup) }
}
