import Crypto
import Envelope
import Foundation
import Logging
import PostgresNIO

extension Database {
    /// Runs a mutating operation at most once per idempotency key, inside the caller's transaction.
    ///
    /// The first request under `key` runs `body`; its reply is stored with a hash of the request in
    /// the same transaction as the change, so both commit or neither does. A retry with the same
    /// request gets the stored reply without running `body` again; the same key with a different
    /// request is a `conflict`. Two identical requests racing wait on the key's row: the second sees
    /// the first's committed reply (or, if the first rolled back, runs itself).
    public func idempotent(
        key: String, request: [UInt8], on connection: PostgresConnection,
        _ body: () async throws -> [UInt8]
    ) async throws -> [UInt8] {
        guard !key.isEmpty, key.utf8.count <= 255 else {
            throw OperationError.invalid(field: "idempotencykey", "must be 1 to 255 bytes")
        }
        let hash = Data(SHA256.hash(data: request))
        let claimed = try await connection.query(
            "INSERT INTO idempotency_keys (key, request_hash) VALUES (\(key), \(hash)) ON CONFLICT (key) DO NOTHING RETURNING key",
            logger: logger)
        for try await _ in claimed {
            let reply = try await body()
            try await connection.query("UPDATE idempotency_keys SET reply = \(Data(reply)) WHERE key = \(key)", logger: logger)
            return reply
        }
        let rows = try await connection.query(
            "SELECT request_hash, reply FROM idempotency_keys WHERE key = \(key)", logger: logger)
        for try await (storedHash, reply) in rows.decode((Data, Data?).self) {
            guard storedHash == hash else {
                throw OperationError(.conflict, "this idempotency key was used for a different request")
            }
            guard let reply else { break }
            return [UInt8](reply)
        }
        throw OperationError(.conflict, "a request with this idempotency key is still being processed")
    }
}
