import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

extension Database {
    /// The data of the requests of `type` a service put in its outbox, oldest first: what it asked
    /// another service to do.
    public func sentRequests(_ type: String) async throws -> [JSONValue] {
        try await transaction { connection in
            try await connection.query("SELECT data FROM outbox WHERE type = \(type) ORDER BY created_at, id", logger: logger)
                .decode(Data.self).reduce(into: [JSONValue]()) { $0.append(try JSONValue.parse(Array($1))) }
        }
    }
}
