import Crypto
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport
import TaxFormContract

/// `tax_form.interviews` and `interview_changes`: every interview and change sealed with its
/// account's data key (`Seal`: AES-256-GCM, bound to the account, year and version), the data key
/// in the kit's `account_keys`, sealed by TAX_FORM_KEY's key ring. Always looked up with the owner.
/// Every method runs on the caller's connection.
struct InterviewStore: Sendable {
    let database: Database
    /// TAX_FORM_KEY and, during a rotation, TAX_FORM_KEY_PREVIOUS.
    let keys: KeyRing

    /// What is sealed: the answers and the skipped questions.
    struct State: Codable, Sendable, Equatable {
        var answers: TaxForm.Answers = [:]
        var skipped: [String] = []
    }

    struct Row: Sendable {
        var version: Int
        var state: State
        var filedAt: Date?
        var updatedAt: Date
    }

    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    /// Serialises changes to one interview: the next holder reads the version this one wrote.
    func lock(account: UUID, year: Int, on connection: PostgresConnection) async throws {
        try await database.lockForTransaction("\(account.uuidString)/\(year)", seed: 16, on: connection)
    }

    func find(account: UUID, year: Int, on connection: PostgresConnection) async throws -> Row? {
        let rows = try await connection.query(
            "SELECT version, sealed, filed_at, updated_at FROM interviews WHERE account_id = \(account) AND tax_year = \(year)",
            logger: database.logger)
        for try await (version, sealed, filedAt, updatedAt) in rows.decode((Int, Data, Date?, Date).self) {
            guard let key = try await dataKey(account: account, create: false, on: connection) else {
                throw Unreadable(description: "an interview without its account's data key")
            }
            let state = try JSONDecoder().decode(State.self, from: open(sealed, key: key, context: "\(account.uuidString)/\(year)/interview"))
            return Row(version: version, state: state, filedAt: filedAt, updatedAt: updatedAt)
        }
        return nil
    }

    /// The account's interview of the latest tax year before `year`, and that year.
    func latest(account: UUID, before year: Int, on connection: PostgresConnection) async throws -> (year: Int, row: Row)? {
        let years = try await connection.query(
            "SELECT max(tax_year) FROM interviews WHERE account_id = \(account) AND tax_year < \(year)", logger: database.logger)
        for try await earlier in years.decode(Int?.self) {
            guard let earlier, let row = try await find(account: account, year: earlier, on: connection) else { return nil }
            return (earlier, row)
        }
        return nil
    }

    /// Writes `state` as `version` (the first version inserts) with the change that made it.
    func save(account: UUID, year: Int, version: Int, state: State, change: TaxForm.Change, on connection: PostgresConnection) async throws -> Row {
        let key = try await dataKey(account: account, create: true, on: connection)!
        let sealed = try Seal.seal(JSONEncoder().encode(state), key: key, context: "\(account.uuidString)/\(year)/interview")
        let rows = try await connection.query(
            """
            INSERT INTO interviews (account_id, tax_year, version, sealed, updated_at) VALUES (\(account), \(year), \(version), \(sealed), \(database.now()))
            ON CONFLICT (account_id, tax_year) DO UPDATE SET version = EXCLUDED.version, sealed = EXCLUDED.sealed, updated_at = EXCLUDED.updated_at
            RETURNING filed_at, updated_at
            """,
            logger: database.logger)
        var stamps: (Date?, Date)?
        for try await row in rows.decode((Date?, Date).self) { stamps = row }
        let sealedChange = try Seal.seal(JSONEncoder().encode(change), key: key, context: "\(account.uuidString)/\(year)/change/\(version)")
        _ = try await connection.query(
            "INSERT INTO interview_changes (account_id, tax_year, version, sealed) VALUES (\(account), \(year), \(version), \(sealedChange))",
            logger: database.logger)
        return Row(version: version, state: state, filedAt: stamps?.0, updatedAt: stamps?.1 ?? Date())
    }

    /// Changes newest first, before version `before` when given.
    func history(account: UUID, year: Int, before: Int?, limit: Int, on connection: PostgresConnection) async throws -> [TaxForm.Change] {
        let rows = try await connection.query(
            """
            SELECT version, sealed FROM interview_changes
            WHERE account_id = \(account) AND tax_year = \(year) AND (\(before)::int4 IS NULL OR version < \(before))
            ORDER BY version DESC LIMIT \(limit)
            """,
            logger: database.logger)
        var changes: [TaxForm.Change] = []
        var key: SymmetricKey?
        for try await (version, sealed) in rows.decode((Int, Data).self) {
            if key == nil { key = try await dataKey(account: account, create: false, on: connection) }
            guard let key else { throw Unreadable(description: "a change without its account's data key") }
            changes.append(try JSONDecoder().decode(TaxForm.Change.self, from: open(sealed, key: key, context: "\(account.uuidString)/\(year)/change/\(version)")))
        }
        return changes
    }

    /// The years the account has an interview for.
    func years(account: UUID, on connection: PostgresConnection) async throws -> [Int] {
        try await connection.query("SELECT tax_year FROM interviews WHERE account_id = \(account) ORDER BY tax_year", logger: database.logger)
            .decode(Int.self).reduce(into: [Int]()) { $0.append($1) }
    }

    func delete(account: UUID, year: Int, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query(
            "DELETE FROM interviews WHERE account_id = \(account) AND tax_year = \(year) RETURNING 1", logger: database.logger
        ).collect().count > 0
    }

    /// Marks the interview filed (the first time counts); nil when there is none.
    func markFiled(account: UUID, year: Int, on connection: PostgresConnection) async throws -> Date? {
        let rows = try await connection.query(
            """
            UPDATE interviews SET filed_at = coalesce(filed_at, \(database.now())) WHERE account_id = \(account) AND tax_year = \(year) RETURNING filed_at
            """,
            logger: database.logger)
        for try await filed in rows.decode(Date.self) { return filed }
        return nil
    }

    /// Every interview of `account` and its data key; returns the tax years whose interviews went.
    func erase(account: UUID, on connection: PostgresConnection) async throws -> [Int] {
        let rows = try await connection.query("DELETE FROM interviews WHERE account_id = \(account) RETURNING tax_year", logger: database.logger)
        var years: [Int] = []
        for try await year in rows.decode(Int.self) { years.append(year) }
        try await database.forgetAccountKey(account, on: connection)
        return years
    }

    /// The account's data key (the kit's `account_keys`, sealed by TAX_FORM_KEY), made on the first save.
    func dataKey(account: UUID, create: Bool, on connection: PostgresConnection) async throws -> SymmetricKey? {
        do {
            return try await database.accountKey(account, create: create, ring: keys, on: connection)
        } catch is SealError {
            throw Unreadable(description: "the account's data key does not open (TAX_FORM_KEY changed without TAX_FORM_KEY_PREVIOUS?)")
        }
    }

    func open(_ sealed: Data, key: SymmetricKey, context: String) throws -> Data {
        do {
            return try Seal.open(sealed, key: key, context: context)
        } catch {
            throw Unreadable(description: "sealed interview data does not open with the account's key")
        }
    }
}
