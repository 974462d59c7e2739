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
                (id, name, email, phone, preferred_time, scenario, refund_cents, tax_year, rules_version, client_ip, client_network)
            VALUES (\(new.id), \(new.request.name), \(new.email), \(new.request.phone), \(new.request.preferredTime.rawValue),
                    \(json)::jsonb, \(new.estimate.refundCents), \(new.estimate.taxYear), \(new.estimate.rulesVersion), \(new.clientIP),
                    \(new.clientIP.flatMap(ClientNetwork.key)))
            """,
            logger: database.logger)
    }

    /// Serialises requests for one address, so its limit holds under concurrency.
    func lock(email: String, on connection: PostgresConnection) async throws {
        _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(email), 8))", logger: database.logger)
    }

    /// Serialises requests from one client network, so its limit holds under concurrency too.
    func lock(network: String, on connection: PostgresConnection) async throws {
        _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(network), 9))", logger: database.logger)
    }

    /// Who a limit counts requests of.
    enum Sender {
        case email(String)
        /// A client network (`ClientNetwork.key`: an IPv4 address or an IPv6 /64).
        case network(String)
    }

    /// How many requests `sender` made in the last `window`, and in how many seconds the oldest of
    /// them leaves it.
    func recent(from sender: Sender, within window: Duration, on connection: PostgresConnection) async throws -> (count: Int, frees: Int) {
        let seconds = Double(window.milliseconds) / 1000
        let (email, ip): (String?, String?) = switch sender {
        case .email(let email): (email, nil)
        case .network(let network): (nil, network)
        }
        let rows = try await connection.query(
            """
            SELECT count(*)::int8, coalesce(ceil(extract(epoch FROM min(created_at) + make_interval(secs => \(seconds)) - now())), 0)::int8
            FROM contact_requests
            WHERE created_at > now() - make_interval(secs => \(seconds)) AND (email = \(email) OR client_network = \(ip))
            """,
            logger: database.logger)
        for try await (count, frees) in rows.decode((Int64, Int64).self) { return (Int(count), max(1, Int(frees))) }
        return (0, 1)
    }

    /// Deletes the requests from `email`; returns how many went.
    func deleteAll(email: String, on connection: PostgresConnection) async throws -> Int {
        try await connection.query("DELETE FROM contact_requests WHERE email = \(email) RETURNING 1", logger: database.logger).collect().count
    }

    /// Drops requests older than `retention`.
    func prune(olderThan retention: Duration, on connection: PostgresConnection) async throws -> Int {
        try await connection.query(
            "DELETE FROM contact_requests WHERE created_at < now() - make_interval(secs => \(Double(retention.milliseconds) / 1000)) RETURNING 1",
            logger: database.logger
        ).collect().count
    }
}
