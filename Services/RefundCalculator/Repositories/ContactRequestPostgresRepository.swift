import RefundCalculatorContract
import Contracts
import Foundation
import PostgresNIO
import PostgresSupport
import ServiceSupport

/// `refund_calculator.contact_requests`: what users asked the refund company, kept as sent. Every
/// method runs on the caller's connection, in its transaction.
struct ContactRequestPostgresRepository: Sendable {
    let database: Database

    struct NewRequest: Sendable {
        var id: UUID
        var request: RefundCalculator.ContactRequest.Create.Request
        var email: String
        var estimate: RefundCalculator.Estimate
        var clientIP: String?
    }

    func insert(_ new: NewRequest, on connection: PostgresConnection) async throws {
        let json = try ScenarioPostgresRepository.json(new.request.scenario)
        try await connection.query(
            """
            INSERT INTO contact_requests
                (id, name, email, phone, preferred_time, scenario, refund_cents, tax_year, rules_version, client_ip, client_network, created_at)
            VALUES (\(new.id), \(new.request.name), \(new.email), \(new.request.phone), \(new.request.preferredTime.rawValue),
                    \(json)::jsonb, \(new.estimate.refundCents), \(new.estimate.taxYear), \(new.estimate.rulesVersion), \(new.clientIP),
                    \(new.clientIP.flatMap(ClientNetwork.key)), \(database.now()))
            """,
            logger: database.logger)
    }

    /// Deletes the requests from `email`; returns how many went.
    func deleteAll(email: String, on connection: PostgresConnection) async throws -> Int {
        try await connection.query("DELETE FROM contact_requests WHERE email = \(email) RETURNING 1", logger: database.logger).collect().count
    }

    /// Drops requests older than `retention`.
    func prune(olderThan retention: Duration, on connection: PostgresConnection) async throws -> Int {
        try await connection.query(
            "DELETE FROM contact_requests WHERE created_at < \(database.ago(retention)) RETURNING 1",
            logger: database.logger
        ).collect().count
    }
}
