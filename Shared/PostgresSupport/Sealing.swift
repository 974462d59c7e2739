import Crypto
import Foundation
import PostgresNIO

/// Data sealed at rest: AES-256-GCM, bound to a context that says whose and what it is
/// (`<account>/<year>/interview`), so a box copied into another row does not open there.
public enum Seal {
    public static func seal(_ plain: Data, key: SymmetricKey, context: String) throws -> Data {
        guard let combined = try AES.GCM.seal(plain, using: key, authenticating: Data(context.utf8)).combined else {
            throw SealError(description: "AES-GCM gave no combined box")
        }
        return combined
    }

    public static func open(_ box: Data, key: SymmetricKey, context: String) throws -> Data {
        do {
            return try AES.GCM.open(AES.GCM.SealedBox(combined: box), using: key, authenticating: Data(context.utf8))
        } catch {
            throw SealError(description: "a sealed box does not open with its key and context")
        }
    }
}

public struct SealError: Error, CustomStringConvertible {
    public let description: String
}

/// The keys from the environment that seal a service's keys at rest (each account's data key,
/// auth's signing keys): the current one seals everything new; the previous ones still open what
/// they sealed, until a rotation has sealed it again under the current one (`rewrapAccountKeys`).
/// A box starts with `MK1` and the first 8 bytes of its key's SHA-256, so the ring knows which key
/// opens it; a box from before the ring (no header) is tried with every key.
public struct KeyRing: Sendable {
    public let current: SymmetricKey
    public let previous: [SymmetricKey]

    public init(current: SymmetricKey, previous: [SymmetricKey] = []) {
        self.current = current
        self.previous = previous
    }

    static let magic = Data("MK1".utf8)

    static func fingerprint(_ key: SymmetricKey) -> Data {
        key.withUnsafeBytes { Data(SHA256.hash(data: Data($0)).prefix(8)) }
    }

    /// Seals `plain` under the current key.
    public func seal(_ plain: Data, context: String) throws -> Data {
        Self.magic + Self.fingerprint(current) + (try Seal.seal(plain, key: current, context: context))
    }

    /// Opens a box sealed under any key of the ring.
    public func open(_ box: Data, context: String) throws -> Data {
        let keys = [current] + previous
        if box.starts(with: Self.magic), box.count > Self.magic.count + 8 {
            let print = box.dropFirst(Self.magic.count).prefix(8)
            if let key = keys.first(where: { Self.fingerprint($0) == print }) {
                return try Seal.open(Data(box.dropFirst(Self.magic.count + 8)), key: key, context: context)
            }
        }
        for key in keys {
            if let plain = try? Seal.open(box, key: key, context: context) { return plain }
        }
        throw SealError(description: "a sealed key opens with none of the keys given (the current and the previous ones)")
    }

    /// Whether `box` is sealed under the current key, with the header.
    public func isCurrent(_ box: Data) -> Bool {
        box.starts(with: Self.magic + Self.fingerprint(current))
    }
}

extension Database {
    /// `account`'s data key, which seals its data (`Seal`), made on first use when `create` says so
    /// (once, whoever races), kept in the kit's `account_keys` table sealed by `ring`.
    public func accountKey(_ account: UUID, create: Bool, ring: KeyRing, on connection: PostgresConnection) async throws -> SymmetricKey? {
        if let key = try await readAccountKey(account, ring: ring, on: connection) { return key }
        guard create else { return nil }
        let wrapped = try ring.seal(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }, context: account.uuidString)
        try await connection.query(
            "INSERT INTO account_keys (account_id, wrapped) VALUES (\(account), \(wrapped)) ON CONFLICT (account_id) DO NOTHING", logger: logger)
        return try await readAccountKey(account, ring: ring, on: connection)
    }

    private func readAccountKey(_ account: UUID, ring: KeyRing, on connection: PostgresConnection) async throws -> SymmetricKey? {
        let rows = try await connection.query("SELECT wrapped FROM account_keys WHERE account_id = \(account)", logger: logger)
        for try await wrapped in rows.decode(Data.self) { return SymmetricKey(data: try ring.open(wrapped, context: account.uuidString)) }
        return nil
    }

    /// Deletes `account`'s data key: whatever it sealed, anywhere, can no longer be opened.
    public func forgetAccountKey(_ account: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM account_keys WHERE account_id = \(account)", logger: logger)
    }

    /// Seals up to `limit` data keys sealed under a previous key again under the current one;
    /// returns how many. Once it returns 0, the previous keys may go from the environment.
    public func rewrapAccountKeys(ring: KeyRing, limit: Int = 500, on connection: PostgresConnection) async throws -> Int {
        let current = KeyRing.magic + KeyRing.fingerprint(ring.current)
        let rows = try await connection.query(
            """
            SELECT account_id, wrapped FROM account_keys WHERE substring(wrapped FROM 1 FOR \(Int32(current.count))) <> \(current)
            LIMIT \(limit) FOR UPDATE SKIP LOCKED
            """,
            logger: logger)
        var stale: [(UUID, Data)] = []
        for try await row in rows.decode((UUID, Data).self) { stale.append(row) }
        for (account, wrapped) in stale {
            let again = try ring.seal(try ring.open(wrapped, context: account.uuidString), context: account.uuidString)
            try await connection.query("UPDATE account_keys SET wrapped = \(again) WHERE account_id = \(account)", logger: logger)
        }
        return stale.count
    }
}
