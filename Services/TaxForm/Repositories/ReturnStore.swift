import Envelope
import Foundation
import PdfEmailContract
import PostgresNIO
import PostgresSupport
import TaxFormContract

/// `tax_form.return_mails`, `return_fills` and `return_pdfs`: how often an account had its returns
/// mailed and filled (the limits count per account, whatever becomes of its interviews), and the
/// last PDF filled per interview, sealed with the account's data key.
struct ReturnStore: Sendable {
    let database: Database
    /// For the account's data key and its sealing.
    let interviews: InterviewStore

    /// A limit's count over its window, and in how many seconds its oldest counted event leaves the
    /// window (the service's clock).
    struct Usage: Sendable {
        var count: Int
        var frees: Int
    }

    /// Returns mailed by `account` in the last 24 hours.
    func mails(account: UUID, on connection: PostgresConnection) async throws -> Usage {
        try await usage(of: "return_mails", at: "mailed_at", within: .seconds(86_400), account: account, on: connection)
    }

    /// Serialises the limit checks of one account: the next holder counts what this one recorded.
    func lock(account: UUID, on connection: PostgresConnection) async throws {
        try await database.lockForTransaction("return-limits/\(account.uuidString)", on: connection)
    }

    func recordMail(account: UUID, year: Int, version: Int, sha256: String, encrypted: Bool, on connection: PostgresConnection) async throws {
        _ = try await connection.query(
            """
            INSERT INTO return_mails (account_id, tax_year, version, sha256, encrypted, mailed_at)
            VALUES (\(account), \(year), \(version), \(sha256), \(encrypted), \(database.now()))
            """, logger: database.logger)
    }

    /// Counts a fill for `account` unless it had `limit` in the last hour: the usage before, and the
    /// reservation to take back if the fill fails (nil when refused).
    func reserveFill(account: UUID, limit: Int) async throws -> (used: Usage, reservation: UUID?) {
        try await database.transaction { connection in
            try await lock(account: account, on: connection)
            let used = try await usage(of: "return_fills", at: "filled_at", within: .seconds(3_600), account: account, on: connection)
            guard used.count < limit else { return (used, nil) }
            let id = UUID()
            _ = try await connection.query("INSERT INTO return_fills (id, account_id, filled_at) VALUES (\(id), \(account), \(database.now()))", logger: database.logger)
            return (used, id)
        }
    }

    /// Takes back a fill that did not happen (pdf-email could not be reached, say).
    func releaseFill(_ reservation: UUID) async throws {
        try await database.transaction { connection in
            _ = try await connection.query("DELETE FROM return_fills WHERE id = \(reservation)", logger: database.logger)
        }
    }

    /// Whether `account` still has an interview for `year` (an erasure may have come in between).
    func interviewExists(account: UUID, year: Int, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query(
            "SELECT 1 FROM interviews WHERE account_id = \(account) AND tax_year = \(year)", logger: database.logger
        ).collect().isEmpty == false
    }

    /// The SHA-256 of the PDF kept for `version` of the interview under `rulesVersion`, if there is one.
    func keptDigest(account: UUID, year: Int, version: Int, rulesVersion: String) async throws -> String? {
        try await database.transaction { connection in
            let rows = try await connection.query(
                """
                SELECT sha256 FROM return_pdfs
                WHERE account_id = \(account) AND tax_year = \(year) AND version = \(version) AND rules_version = \(rulesVersion)
                """, logger: database.logger)
            for try await digest in rows.decode(String.self) { return digest }
            return nil
        }
    }

    /// The PDF filled for `version` of the interview under `rulesVersion`, if it is the one kept.
    func cachedPDF(account: UUID, year: Int, version: Int, rulesVersion: String) async throws -> PdfEmail.Forms.Fill.Response? {
        try await database.transaction { connection in
            let rows = try await connection.query(
                """
                SELECT sealed FROM return_pdfs
                WHERE account_id = \(account) AND tax_year = \(year) AND version = \(version) AND rules_version = \(rulesVersion)
                """, logger: database.logger)
            for try await sealed in rows.decode(Data.self) {
                guard let key = try await interviews.dataKey(account: account, create: false, on: connection) else { return nil }
                let plain = try interviews.open(sealed, key: key, context: Self.context(account, year, version))
                return try JSONDecoder().decode(PdfEmail.Forms.Fill.Response.self, from: plain)
            }
            return nil
        }
    }

    /// Keeps `pdf` as the interview's PDF for `version`, unless the interview has moved on (or gone).
    func keep(_ pdf: PdfEmail.Forms.Fill.Response, account: UUID, year: Int, version: Int, rulesVersion: String) async throws {
        try await database.transaction { connection in
            guard let key = try await interviews.dataKey(account: account, create: false, on: connection) else { return }
            let sealed = try Seal.seal(JSONEncoder().encode(pdf), key: key, context: Self.context(account, year, version))
            _ = try await connection.query(
                """
                INSERT INTO return_pdfs (account_id, tax_year, version, rules_version, sha256, sealed, filled_at)
                SELECT \(account), \(year), \(version), \(rulesVersion), \(pdf.sha256), \(sealed), \(database.now())
                FROM interviews WHERE account_id = \(account) AND tax_year = \(year) AND version = \(version)
                ON CONFLICT (account_id, tax_year) DO UPDATE
                    SET version = EXCLUDED.version, rules_version = EXCLUDED.rules_version, sha256 = EXCLUDED.sha256, sealed = EXCLUDED.sealed,
                        filled_at = EXCLUDED.filled_at
                """, logger: database.logger)
        }
    }

    /// What the account's returns left: its mailings and fills (its PDFs go with its interviews),
    /// and its returns still to be handed to pdf-email. Holds the account's limit lock, so a mailing
    /// under way either committed before (and its mail is pdf-email's to erase) or finds no interview.
    func erase(account: UUID, on connection: PostgresConnection) async throws {
        try await lock(account: account, on: connection)
        try await database.dropUndelivered(account: account, on: connection)
        _ = try await connection.query("DELETE FROM return_mails WHERE account_id = \(account)", logger: database.logger)
        _ = try await connection.query("DELETE FROM return_fills WHERE account_id = \(account)", logger: database.logger)
        try await ReadLog(database: database).erase(account: account, on: connection)
    }

    /// The account's mailings still kept (a week), newest first.
    func mailed(account: UUID, on connection: PostgresConnection) async throws -> [TaxForm.MyData.ExportedMail] {
        let rows = try await connection.query(
            "SELECT tax_year, version, mailed_at, encrypted, sha256 FROM return_mails WHERE account_id = \(account) ORDER BY mailed_at DESC",
            logger: database.logger)
        var mails: [TaxForm.MyData.ExportedMail] = []
        for try await (year, version, at, encrypted, sha256) in rows.decode((Int, Int, Date, Bool, String).self) {
            mails.append(.init(taxYear: year, version: version, mailedAt: at, encrypted: encrypted, sha256: sha256))
        }
        return mails
    }

    /// Forgets mailings older than a week and fills older than a day: the limits look back less.
    func prune(on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            """
            WITH mails AS (DELETE FROM return_mails WHERE mailed_at < \(database.ago(.seconds(7 * 86_400))) RETURNING 1),
                 fills AS (DELETE FROM return_fills WHERE filled_at < \(database.ago(.seconds(86_400))) RETURNING 1)
            SELECT ((SELECT count(*) FROM mails) + (SELECT count(*) FROM fills))::int
            """, logger: database.logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// The account's rows of `table` whose `column` is within the last `window`, and in how many
    /// seconds the oldest leaves it. The names are this file's constants, never input.
    private func usage(of table: String, at column: String, within window: Duration, account: UUID, on connection: PostgresConnection) async throws -> Usage {
        let now = database.now(), start = now.adding(.zero - window)
        let rows = try await connection.query(
            """
            SELECT count(*)::int, coalesce(ceil(extract(epoch FROM min(\(unescaped: column)) - \(start))), 0)::int
            FROM \(unescaped: table) WHERE account_id = \(account) AND \(unescaped: column) > \(start) AND \(unescaped: column) <= \(now)
            """, logger: database.logger)
        for try await (count, frees) in rows.decode((Int, Int).self) { return Usage(count: count, frees: max(1, frees)) }
        return Usage(count: 0, frees: 1)
    }

    private static func context(_ account: UUID, _ year: Int, _ version: Int) -> String { "\(account.uuidString)/\(year)/pdf/\(version)" }
}
