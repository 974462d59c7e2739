import Bus
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport
import TaxFormContract

/// `tax_form.unmasked_reads`: each read of an account's unmasked data, for its owner to see.
struct ReadLog: Sendable {
    let database: Database

    enum What: String {
        case pdf, mail, export
    }

    /// Records a read by the caller of `context` (their app and session).
    func record(_ what: What, account: UUID, year: Int?, context: RequestContext, on connection: PostgresConnection) async throws {
        let session = context.attributes.claim("sid").flatMap(UUID.init(uuidString:))
        let app = context.attributes.app.map { String($0.prefix(40)) }
        try await connection.query(
            """
            INSERT INTO unmasked_reads (account_id, at, what, tax_year, app, session_id)
            VALUES (\(account), \(database.now()), \(what.rawValue), \(year), \(app), \(session))
            """,
            logger: database.logger)
    }

    /// The account's reads, newest first.
    func list(account: UUID, before: Int64?, limit: Int, on connection: PostgresConnection) async throws -> [TaxForm.MyData.Read] {
        let rows = try await connection.query(
            """
            SELECT id, at, what, tax_year, app, session_id FROM unmasked_reads
            WHERE account_id = \(account) AND (\(before)::int8 IS NULL OR id < \(before))
            ORDER BY id DESC LIMIT \(limit)
            """,
            logger: database.logger)
        var reads: [TaxForm.MyData.Read] = []
        for try await (id, at, what, year, app, session) in rows.decode((Int64, Date, String, Int?, String?, UUID?).self) {
            reads.append(.init(id: id, at: at, what: what, taxYear: year, app: app, session: session?.uuidString.lowercased()))
        }
        return reads
    }

    func erase(account: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM unmasked_reads WHERE account_id = \(account)", logger: database.logger)
    }
}
