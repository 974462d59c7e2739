import Foundation
import PostgresNIO

/// A `postgres://user:password@host:port/database?sslmode=...` URL, read into PostgresNIO's client
/// configuration. `sslmode` is `disable`, `prefer` (the default) or `require`.
public struct DatabaseURL: Sendable, CustomStringConvertible {
    public let configuration: PostgresClient.Configuration
    /// The URL without its password, for logs.
    public let description: String

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public init(_ text: String) throws {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, !host.isEmpty, let user = components.user, !user.isEmpty
        else { throw Invalid(description: "DATABASE_URL must look like postgres://user:password@host:port/database") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        let tls: PostgresClient.Configuration.TLS
        switch components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer" {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(.makeClientConfiguration())
        case "require": tls = .require(.makeClientConfiguration())
        case let other: throw Invalid(description: "DATABASE_URL sslmode must be disable, prefer or require, not \(other)")
        }
        configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: database.isEmpty ? nil : database, tls: tls)
        description = "postgres://\(user)@\(host):\(components.port ?? 5432)/\(database)"
    }
}
