import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// The PostgreSQL cluster `deploy/test.sh` starts, with a fresh schema per test.
public enum TestDatabase {
    public struct NotConfigured: Error, CustomStringConvertible {
        public let description = "TEST_DATABASE_URL is not set: run the tests with ./deploy/test.sh, which starts a private PostgreSQL"
    }

    /// The cluster's URL.
    public static func url() throws -> DatabaseURL {
        guard let text = ProcessInfo.processInfo.environment["TEST_DATABASE_URL"], !text.isEmpty else { throw NotConfigured() }
        return try DatabaseURL(text)
    }

    /// A schema name no other test uses.
    public static func freshSchema(_ prefix: String = "t") -> String {
        "\(prefix)_\(RandomIDForTests.next())"
    }

    /// A database handle on a fresh schema (not yet running: pass it to `BusHarness.with` or run it).
    public static func make(schema: String = freshSchema(), maximumConnections: Int = 4, now: @escaping @Sendable () -> Date = { Date() }) throws -> Database {
        var logger = Logger(label: "test-db")
        logger.logLevel = .warning
        return try Database(url: url(), schema: schema, maximumConnections: maximumConnections, logger: logger, now: now)
    }
}

extension TestDatabase {
    /// A new, empty database in the test cluster, for processes whose schema name is fixed (each
    /// service's own): returns its URL.
    public static func freshDatabase() async throws -> String {
        guard let text = ProcessInfo.processInfo.environment["TEST_DATABASE_URL"], var components = URLComponents(string: text) else {
            throw NotConfigured()
        }
        let name = freshSchema("db")
        try await run("CREATE DATABASE \(name)", on: text)
        components.path = "/\(name)"
        return components.string!
    }

    /// Runs one SQL statement on the database at `url` (to set up what a test needs, as an operator would).
    public static func run(_ sql: String, on url: String) async throws {
        try await withConnection(to: url) { connection, logger in
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        }
    }

    /// The integer the query `sql` (one row, one column) answers on the database at `url`.
    public static func integer(_ sql: String, on url: String) async throws -> Int {
        try await withConnection(to: url) { connection, logger in
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int.self).reduce(0, +)
        }
    }

    /// The first column of each row `sql` answers on the database at `url`, as text.
    public static func rows(_ sql: String, on url: String) async throws -> [String] {
        try await withConnection(to: url) { connection, logger in
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(String.self).reduce(into: [String]()) { $0.append($1) }
        }
    }

    private static func withConnection<Result>(
        to url: String, _ body: (PostgresConnection, Logger) async throws -> Result
    ) async throws -> Result {
        guard let components = URLComponents(string: url) else { throw NotConfigured() }
        let configuration = PostgresConnection.Configuration(
            host: components.host ?? "127.0.0.1", port: components.port ?? 5432, username: components.user ?? "",
            password: components.password, database: String(components.path.dropFirst()), tls: .disable)
        var logger = Logger(label: "test-db")
        logger.logLevel = .warning
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            let result = try await body(connection, logger)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

/// Short random lowercase names for test schemas.
enum RandomIDForTests {
    static func next() -> String {
        String((0..<12).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement()! })
    }
}

extension TestDatabase {
    /// Gives `schema` a login role of its own on the database at `adminURL`, as operators do with
    /// `deploy/service-role.sh`, and returns the URL that signs in as it.
    public static func serviceRole(_ role: String, schema: String, on adminURL: String) async throws -> String {
        let script = BuildProducts.packageRoot().appendingPathComponent("deploy/service-role.sh").path
        let password = RandomIDForTests.next() + RandomIDForTests.next()
        let process = try ChildProcess(executable: "/bin/bash", arguments: [script, adminURL, role, schema], environment: ["ROLE_PASSWORD": password])
        let status = await process.wait(timeout: .seconds(60))
        guard status == 0, let url = process.output.split(separator: "\n").last.map(String.init), url.hasPrefix("postgres") else {
            throw ServiceRoleFailed(description: "deploy/service-role.sh exited \(status.map(String.init) ?? "late"): \(process.output)")
        }
        return url
    }

    public struct ServiceRoleFailed: Error, CustomStringConvertible {
        public let description: String
    }
}
