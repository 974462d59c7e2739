import RefundCalculatorContract
import Contracts
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

/// `refund_calculator.scenarios`: saved scenarios, always looked up with their owner, so nobody
/// reaches another account's. Every method runs on the caller's connection, in its transaction.
struct ScenarioPostgresRepository: Sendable {
    let database: Database

    /// A stored row: the scenario as saved and its paging key.
    struct Row: Sendable {
        var seq: Int64
        var saved: RefundCalculator.SavedScenario
    }

    func insert(id: UUID, account: UUID, name: String, scenario: RefundCalculator.Scenario, on connection: PostgresConnection) async throws -> Row {
        let json = try Self.json(scenario)
        let rows = try await connection.query(
            """
            INSERT INTO scenarios (id, account_id, name, scenario, created_at, updated_at)
            VALUES (\(id), \(account), \(name), \(json)::jsonb, \(database.now()), \(database.now()))
            RETURNING seq, id, name, scenario::text, created_at, updated_at
            """,
            logger: database.logger)
        return try await Self.rows(rows).first!
    }

    /// Serialises writers of one account (for the per-account limit) and counts its scenarios.
    func lockAndCount(account: UUID, on connection: PostgresConnection) async throws -> Int {
        try await database.lockForTransaction(account.uuidString, seed: 7, on: connection)
        let rows = try await connection.query("SELECT count(*)::int8 FROM scenarios WHERE account_id = \(account)", logger: database.logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    func find(id: UUID, account: UUID, on connection: PostgresConnection) async throws -> Row? {
        try await Self.rows(connection.query(
            """
            SELECT seq, id, name, scenario::text, created_at, updated_at FROM scenarios WHERE id = \(id) AND account_id = \(account)
            """,
            logger: database.logger)).first
    }

    /// The account's scenarios newest first, older than `before` (a `seq`) when given.
    func list(account: UUID, before: Int64?, limit: Int, on connection: PostgresConnection) async throws -> [Row] {
        try await Self.rows(connection.query(
            """
            SELECT seq, id, name, scenario::text, created_at, updated_at FROM scenarios
            WHERE account_id = \(account) AND (\(before)::int8 IS NULL OR seq < \(before))
            ORDER BY seq DESC LIMIT \(limit)
            """,
            logger: database.logger))
    }

    func update(id: UUID, account: UUID, name: String, scenario: RefundCalculator.Scenario, on connection: PostgresConnection) async throws -> Row? {
        let json = try Self.json(scenario)
        return try await Self.rows(connection.query(
            """
            UPDATE scenarios SET name = \(name), scenario = \(json)::jsonb, updated_at = \(database.now())
            WHERE id = \(id) AND account_id = \(account)
            RETURNING seq, id, name, scenario::text, created_at, updated_at
            """,
            logger: database.logger)).first
    }

    func delete(id: UUID, account: UUID, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query(
            "DELETE FROM scenarios WHERE id = \(id) AND account_id = \(account) RETURNING 1", logger: database.logger
        ).collect().count > 0
    }

    /// Deletes every scenario of `account`; returns how many went.
    func deleteAll(account: UUID, on connection: PostgresConnection) async throws -> Int {
        try await connection.query("DELETE FROM scenarios WHERE account_id = \(account) RETURNING 1", logger: database.logger).collect().count
    }

    static func json(_ scenario: RefundCalculator.Scenario) throws -> String {
        String(decoding: try EnvelopeCodec().encode(scenario), as: UTF8.self)
    }

    private static func rows(_ rows: PostgresRowSequence) async throws -> [Row] {
        var result: [Row] = []
        let codec = EnvelopeCodec()
        for try await (seq, id, name, json, created, updated) in rows.decode((Int64, UUID, String, String, Date, Date).self) {
            let scenario = try codec.decode(RefundCalculator.Scenario.self, from: Array(json.utf8))
            result.append(Row(seq: seq, saved: .init(
                id: id.uuidString.lowercased(), name: name, scenario: scenario, createdAt: created, updatedAt: updated)))
        }
        return result
    }
}
